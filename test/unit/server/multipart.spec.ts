// The streaming multipart reader: part bodies come out intact whatever the network chunking, and
// without copying a chunk that cannot hold the start of the delimiter.
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { multipartFiles, parseMultipart } from '../../../server/multipart.js'
import { multipart } from '../../helpers/rpc.js'

async function * chunked (body: Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  let off = 0
  let i = 0
  while (off < body.length) {
    const n = sizes[i++ % sizes.length]
    yield body.subarray(off, off + n)
    off += n
  }
}

const boundaryOf = (contentType: string): string => contentType.split('boundary=')[1]

async function readParts (body: Buffer, boundary: string, sizes: number[]): Promise<Array<{ name: string, bytes: Buffer, pieces: Buffer[] }>> {
  const out = []
  for await (const part of parseMultipart(chunked(body, sizes), boundary)) {
    const pieces: Buffer[] = []
    for await (const c of part.body) pieces.push(c)
    out.push({ name: part.headers.get('content-disposition') ?? '', bytes: Buffer.concat(pieces), pieces })
  }
  return out
}

describe('multipart reader', () => {
  // contents that end in a CR, or in what looks like the start of the delimiter
  const contents = [randomBytes(5000), Buffer.from('line\r'), Buffer.from('x\r\n-'), Buffer.from('y\r\n--'), Buffer.alloc(0), randomBytes(70000)]
  const mp = multipart(contents.map((content, i) => ({ filename: `f${i}`, content })))
  const boundary = boundaryOf(mp.contentType)

  for (const sizes of [[1], [2, 3], [7], [64], [1000, 1], [65536], [mp.body.length]]) {
    it(`returns every part intact when the body arrives in pieces of ${sizes.join(',')} bytes`, async () => {
      const parts = await readParts(mp.body, boundary, sizes)
      expect(parts.map(p => p.bytes.toString('hex'))).to.deep.equal(contents.map(c => c.toString('hex')))
      expect(parts.map(p => p.name)).to.deep.equal(contents.map((_, i) => `form-data; name="${i === 0 ? 'file' : `file-${i}`}"; filename="f${i}"`))
    })
  }

  it('passes a network chunk on as a view of itself (no copy) when it cannot hold a delimiter start', async () => {
    const content = Buffer.alloc(200000, 0x61) // no CR anywhere
    const body = multipart([{ filename: 'a', content }])
    const chunks = [...(function * () { for (let o = 0; o < body.body.length; o += 65536) yield Buffer.from(body.body.subarray(o, o + 65536)) })()]
    const seen = new Set<ArrayBufferLike>(chunks.map(c => c.buffer))
    const pieces: Buffer[] = []
    for await (const part of parseMultipart((async function * () { yield * chunks })(), boundaryOf(body.contentType))) {
      for await (const c of part.body) pieces.push(c)
    }
    expect(Buffer.concat(pieces).equals(content)).to.equal(true)
    // every piece is a view into one of the received chunks
    for (const p of pieces) expect(seen.has(p.buffer)).to.equal(true)
  })

  it('holds back a tail that may start the delimiter and yields it once it is known not to', async () => {
    const content = Buffer.from('abc\r\n-def')
    const body = multipart([{ filename: 'a', content }])
    const at = body.body.indexOf(content) + 5 // split right after "abc\r\n"
    const parts = await readParts(body.body, boundaryOf(body.contentType), [at, body.body.length])
    expect(parts[0].bytes.toString()).to.equal('abc\r\n-def')
    expect(parts[0].pieces[0].toString()).to.equal('abc') // "\r\n" waited for the next chunk
  })

  it('fails a body cut inside a part', async () => {
    const cut = mp.body.subarray(0, mp.body.length - 100)
    let error: unknown
    try {
      for await (const f of multipartFiles(chunked(cut, [4096]), boundary)) for await (const _ of f.content ?? []) { /* read */ }
    } catch (err) { error = err }
    expect((error as Error)?.message).to.equal('multipart: NextPart: EOF')
  })
})
