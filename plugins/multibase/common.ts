// Kubo cmdenv.GetFileArg + io.ReadAll: the bytes of the first file argument.
import { RpcError } from '../../core/errors.js'
import type { FileEntry } from '../../registry/types.js'

export async function readFileArg (files: AsyncIterable<FileEntry> | undefined): Promise<Uint8Array> {
  let entry: FileEntry | undefined
  if (files != null) {
    for await (const f of files) { entry = f; break }
  }
  if (entry == null) throw new RpcError('failed to access file: expected a file argument')
  if (entry.type === 'directory') throw new RpcError('failed to access file: file argument was nil')
  // a symlink reads as its target
  if (entry.type === 'symlink') return new TextEncoder().encode(entry.target ?? '')
  const chunks: Uint8Array[] = []
  for await (const chunk of entry.content ?? []) chunks.push(chunk)
  return Buffer.concat(chunks)
}
