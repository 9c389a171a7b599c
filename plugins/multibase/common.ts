// Shared pieces of the multibase commands (Kubo core/commands/multibase.go).
import { RpcError } from '../../core/errors.js'
import { decodeMultibase, encodeMultibase, encoderByName } from '../../core/go/multibase.js'
import type { ArgSpec, FileEntry, OptionSpec } from '../../registry/types.js'

/** The -b option of encode and transcode. */
export const baseOption = {
  b: { type: 'string' as const, default: 'base64url', description: 'multibase encoding' }
} satisfies Record<string, OptionSpec<'string'>>

/** The file argument of decode and transcode. */
export const encodedFileArg: ArgSpec = { name: 'encoded_file', kind: 'file', required: true, stdin: true, description: 'encoded data to decode' }

/** Kubo cmdenv.GetFileArg + io.ReadAll: the bytes of the first file argument. */
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

/** Decode with Kubo's error wording. */
export function decodeOrFail (encoded: Uint8Array): Uint8Array {
  try {
    return decodeMultibase(encoded).data
  } catch (err) {
    throw new RpcError(`failed to decode multibase: ${(err as Error).message}`)
  }
}

/**
 * encode and transcode: look up the -b encoder (before reading, as Kubo does), read the file
 * argument, decode it from multibase first when transcoding, and encode it in that base.
 */
export async function encodeFileArg (baseName: string, files: AsyncIterable<FileEntry> | undefined, decodeFirst: boolean): Promise<Uint8Array> {
  let base: number
  try { base = encoderByName(baseName) } catch (err) { throw new RpcError((err as Error).message) }
  const data = await readFileArg(files)
  return encodeMultibase(base, decodeFirst ? decodeOrFail(data) : data)
}
