// The streaming multipart reader: part bodies come out intact whatever the network chunking, and
// without copying a chunk that cannot hold the start of the delimiter.
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { PassThrough, Readable } from 'node:stream'
import { multipartFiles, parseMultipart, requestFiles, streamChunks } from '../../../server/multipart.js'
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
    expect((error as Error)?.message).to.equal('unexpected EOF') // Go's partReader: io.ErrUnexpectedEOF
  })
})

/** Parse a body given as text; each part as [headers, body text]; or the error text. */
async function parseText (body: string | Buffer, sizes = [body.length]): Promise<Array<[Record<string, string>, string]> | string> {
  const out: Array<[Record<string, string>, string]> = []
  try {
    for await (const part of parseMultipart(chunked(Buffer.from(body), sizes), 'B')) {
      const pieces: Buffer[] = []
      for await (const c of part.body) pieces.push(c)
      out.push([Object.fromEntries(part.headers), Buffer.concat(pieces).toString()])
    }
  } catch (err) { return (err as Error).message }
  return out
}

describe('multipart reader: Go mime/multipart semantics', () => {
  const cd = { 'content-disposition': 'form-data; name="file"; filename="a"' }
  const cases: Array<[string, string, Array<[Record<string, string>, string]> | string]> = [
    ['CRLF', '--B\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nhello\r\n--B--\r\n', [[cd, 'hello']]],
    ['bare LF line endings (set by the first boundary line)', '--B\nContent-Disposition: form-data; name="file"; filename="a"\n\nhel\r\nlo\n--B--\n', [[cd, 'hel\r\nlo']]],
    ['a part without headers', '--B\r\n\r\nhello\r\n--B--\r\n', [[{}, 'hello']]],
    ['a preamble and an epilogue', 'junk\r\nmore junk\r\n--B\r\n\r\nx\r\n--B--\r\nepilogue', [[{}, 'x']]],
    ['transport padding after the boundary', '--B \t\r\n\r\nx\r\n--B--  \r\n', [[{}, 'x']]],
    ['a delimiter look-alike inside the body', '--B\r\n\r\nx\r\n--Bx\r\n--B-y\r\n--B--', [[{}, 'x\r\n--Bx\r\n--B-y']]],
    ['an empty body right after the headers', '--B\r\nA: 1\r\n\r\n--B--', [[{ a: '1' }, '']]],
    ['only the final boundary', '--B--', []],
    ['the end of input in the headers (io.EOF: no more parts)', '--B\r\n', []],
    ['a body of just --B', '--B', 'multipart: NextPart: EOF'],
    ['an empty body', '', 'multipart: NextPart: EOF'],
    ['a part cut before its delimiter', '--B\r\n\r\nhello', 'unexpected EOF'],
    ['a header name with a space (Go takes it as is, golang/go#34540)', '--B\r\nX Y: z\r\nA: 1\r\n\r\nx\r\n--B--', [[{ 'x y': 'z', a: '1' }, 'x']]],
    ['a header name with a byte no token has', '--B\r\nX@Y: z\r\n\r\nx\r\n--B--', 'malformed MIME header line: X@Y: z'],
    ['a header line without a colon', '--B\r\nbad header\r\n\r\nx\r\n--B--', 'malformed MIME header: missing colon: "bad header"'],
    ['a non-boundary line where a part must start', '--B\r\n\r\nx\r\n--B--x\r\n', 'multipart: expecting a new Part; got line "--B--x\\r\\n"']
  ]
  for (const [name, body, expected] of cases) {
    for (const sizes of [[body.length], [1], [3]]) {
      it(`${name} (pieces of ${sizes[0]})`, async () => {
        expect(await parseText(body, sizes)).to.deep.equal(expected)
      })
    }
  }

  it('stops at the first 4 KiB of a line that never ends, as bufio does (no re-buffering)', async () => {
    let pulled = 0
    const source = (async function * () { for (let i = 0; i < 256; i++) { pulled++; yield Buffer.alloc(65536) } })()
    let error: unknown
    try { for await (const _ of parseMultipart(source, 'B')) { /* none */ } } catch (err) { error = err }
    expect((error as Error).message).to.equal('multipart: NextPart: bufio: buffer full')
    expect(pulled).to.equal(1)
  })

  it('reads 16 MiB of preamble lines or of an unterminated part in linear time (bytes copied stay below twice the input)', async () => {
    const concat = Buffer.concat
    let copied = 0
    Buffer.concat = ((list: readonly Uint8Array[], total?: number) => { const b = concat(list, total); copied += b.length; return b }) as typeof Buffer.concat
    try {
      for (const [head, fill] of [['', 10], ['--B\r\n\r\n', 13], ['--B\r\n\r\n', 0]] as const) {
        copied = 0
        const source = (async function * () { yield Buffer.from(head); for (let i = 0; i < 256; i++) yield Buffer.alloc(65536, fill) })()
        let error: unknown
        try { for await (const p of parseMultipart(source, 'B')) for await (const _ of p.body) { /* discard */ } } catch (err) { error = err }
        expect((error as Error).message).to.match(/EOF/)
        expect(copied).to.be.below(2 * 256 * 65536) // quadratic re-buffering copied ~2 GiB here
      }
    } finally {
      Buffer.concat = concat
    }
  })

  it('multipartFiles ends the listing at a part without Content-Disposition, as boxo does', async () => {
    const names: string[] = []
    const body = '--B\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nx\r\n--B\r\nContent-Type: text/plain\r\n\r\ny\r\n--B\r\nContent-Disposition: form-data; name="file"; filename="c"\r\n\r\nz\r\n--B--'
    for await (const f of multipartFiles(chunked(Buffer.from(body), [7]), 'B')) {
      names.push(f.path)
      for await (const _ of f.content ?? []) { /* read */ }
    }
    expect(names).to.deep.equal(['a'])
  })
})

describe('streamChunks', () => {
  const tick = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }

  it('reads up to readAhead bytes ahead of its consumer, then pauses the stream until half is consumed', async () => {
    // a stream's own buffer (16 KiB here) would stop the writer after one chunk
    const s = new PassThrough({ highWaterMark: 16384 })
    const it = streamChunks(s, 256 * 1024)
    const first = it.next()
    const chunks = Array.from({ length: 12 }, (_, i) => Buffer.alloc(32 * 1024, i))
    const accepted = chunks.map(c => s.write(c))
    expect((await first).value?.[0]).to.equal(0)
    for (let i = 0; i < 4; i++) await tick()
    // everything up to the limit went to the reader's queue: the writer was not held back
    expect(accepted.slice(0, 8).every(a => a)).to.equal(true)
    expect(s.isPaused()).to.equal(true)
    const got = [0]
    for (let i = 1; i < 12; i++) {
      const r = await it.next()
      got.push((r.value as Buffer)[0])
      if (i === 4) expect(s.isPaused()).to.equal(false) // resumed below half the limit
    }
    s.end()
    expect((await it.next()).done).to.equal(true)
    expect(got).to.deep.equal(chunks.map((_, i) => i))
  })

  it('yields every byte in order and ends with the stream', async () => {
    const s = new PassThrough()
    const data = randomBytes(300000)
    const out: Buffer[] = []
    const reading = (async () => { for await (const c of streamChunks(s, 4096)) { out.push(c); await tick() } })()
    for (let o = 0; o < data.length; o += 1000) s.write(data.subarray(o, o + 1000))
    s.end()
    await reading
    expect(Buffer.concat(out).equals(data)).to.equal(true)
  })

  it('throws the error a stream was destroyed with, and "Premature close" when it closes without ending', async () => {
    // (an IncomingMessage emits no 'error' without listeners; a PassThrough does)
    const failing = new PassThrough().on('error', () => {})
    const a = streamChunks(failing)
    const firstA = a.next()
    failing.write(Buffer.from('x'))
    expect((await firstA).value?.toString()).to.equal('x')
    failing.destroy(new Error('boom'))
    let err: unknown
    try { await a.next() } catch (e) { err = e }
    expect((err as Error)?.message).to.equal('boom')

    const cut = new PassThrough()
    const b = streamChunks(cut)
    const firstB = b.next()
    cut.destroy()
    err = undefined
    try { await firstB } catch (e) { err = e }
    expect((err as NodeJS.ErrnoException)?.code).to.equal('ERR_STREAM_PREMATURE_CLOSE')
  })

  it('destroys the stream when the consumer stops early, and leaves it once read to the end', async () => {
    const s = new PassThrough()
    s.write(Buffer.from('a'))
    s.write(Buffer.from('b'))
    for await (const _ of streamChunks(s)) break
    expect(s.destroyed).to.equal(true)
    const t = new PassThrough()
    t.end(Buffer.from('z'))
    const seen: string[] = []
    for await (const c of streamChunks(t)) seen.push(c.toString())
    expect(seen).to.deep.equal(['z'])
    expect(t.listenerCount('data')).to.equal(0)
  })

  it('takes a request received whole from its buffer in one chunk (no listeners); ends it, or destroys it when stopped early', async () => {
    const whole = (): Readable => {
      const r = new Readable({ read () {} })
      r.push(Buffer.from('--b\r\n'))
      r.push(Buffer.from('body'))
      r.push(null)
      return Object.assign(r, { complete: true })
    }
    const r = whole()
    const seen: string[] = []
    for await (const c of streamChunks(r)) { seen.push(c.toString()); expect(r.listenerCount('data')).to.equal(0) }
    expect(seen).to.deep.equal(['--b\r\nbody'])
    await tick()
    expect(r.readableEnded).to.equal(true) // read to its end, not destroyed before
    const early = whole()
    for await (const _ of streamChunks(early)) break
    expect(early.destroyed).to.equal(true)
    // a request whose Content-Length bytes are all buffered, before its end is known: one chunk, then it ends
    const sized = Object.assign(new Readable({ read () {} }), { complete: false, headers: { 'content-length': '9' } })
    sized.push(Buffer.from('--b\r\n'))
    sized.push(Buffer.from('body'))
    const got: string[] = []
    for await (const c of streamChunks(sized)) { got.push(c.toString()); expect(sized.listenerCount('data')).to.equal(0) }
    expect(got).to.deep.equal(['--b\r\nbody'])
    sized.push(null)
    await tick()
    expect(sized.readableEnded).to.equal(true)
    // not complete yet: read as it comes
    const partial = new Readable({ read () {} })
    partial.push(Buffer.from('x'))
    const it = streamChunks(partial)
    expect((await it.next()).value?.toString()).to.equal('x')
    expect(partial.listenerCount('data')).to.equal(1)
    partial.push(null)
    expect((await it.next()).done).to.equal(true)
  })
})

describe('requestFiles', () => {
  /** a request whose body is all in its buffer (as a small upload is when its handler runs) */
  const received = (body: string): Readable => {
    const r = new Readable({ read () {} })
    r.push(Buffer.from(body))
    r.push(null)
    return Object.assign(r, { complete: true })
  }
  /** entries (path, type, content or target) then the error text, if any */
  const list = async (files: AsyncIterable<{ path: string, type: string, content?: AsyncIterable<Uint8Array>, target?: string }>, onPart?: () => void): Promise<string[]> => {
    const out: string[] = []
    try {
      for await (const f of files) {
        onPart?.()
        const pieces: Uint8Array[] = []
        for await (const c of f.content ?? []) pieces.push(c)
        out.push(`${f.type} ${f.path} ${f.target ?? Buffer.concat(pieces).toString()}`)
      }
    } catch (err) { out.push(`error: ${(err as Error).message}`) }
    return out
  }
  const disp = (name: string, type = 'application/octet-stream'): string => `Content-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`
  const plain: Array<[string, string, string[]]> = [
    ['one part, final CRLF', `--B\r\n${disp('a')}hello\r\n--B--\r\n`, ['file a hello']],
    ['no CRLF after the final delimiter', `--B\r\n${disp('a')}hello\r\n--B--`, ['file a hello']],
    ['an epilogue', `--B\r\n${disp('a')}hello\r\n--B--\r\nmore`, ['file a hello']],
    ['parts of every kind, one empty', `--B\r\n${disp('d', 'application/x-directory')}\r\n--B\r\n${disp('d/e')}\r\n--B\r\n${disp('d/l', 'application/symlink')}e\r\n--B\r\n${disp('d/f?x')}-\r\n-\r\n--B--\r\n`, ['directory d ', 'file d/e ', 'symlink d/l e', 'file d/f?x -\r\n-']],
    ['a part without Content-Disposition ends the listing', `--B\r\n${disp('a')}x\r\n--B\r\nContent-Type: text/plain\r\n\r\ny\r\n--B\r\n${disp('c')}z\r\n--B--`, ['file a x']]
  ]
  for (const [name, body, expected] of plain) {
    it(`splits a plain body received whole at once, as the streaming parser reads it: ${name}`, async () => {
      const r = received(body)
      // whole at once: the request is already let run to its end when the first entry comes (the streaming parser
      // resumes it only if it reads past the final delimiter), and no listener was added
      const got = await list(requestFiles(r, 'B'), () => { expect(r.listenerCount('data')).to.equal(0); expect(r.readableFlowing).to.equal(true) })
      expect(got).to.deep.equal(expected)
      expect(await list(multipartFiles(streamChunks(received(body)), 'B'))).to.deep.equal(expected)
      await new Promise(resolve => setImmediate(resolve))
      expect(r.readableEnded).to.equal(true)
    })
  }

  const other = [
    `--B\n${disp('a').replace(/\r\n/g, '\n')}hel\r\nlo\n--B--\n`,
    `junk\r\n--B\r\n${disp('a')}x\r\n--B--\r\n`,
    `--B \t\r\n${disp('a')}x\r\n--B--  \r\n`,
    `--B\r\n${disp('a')}x\r\n--Bx\r\n--B-y\r\n--B--`,
    `--B\r\n${disp('a')}--B--`,
    `--B\r\nA: 1\r\n continued\r\n${disp('a')}x\r\n--B--`,
    `--B\r\nbad header\r\n\r\nx\r\n--B--`,
    `--B\r\n${disp('a')}x\r\n--B--x\r\n`,
    `--B\r\n${disp('a')}x\r\n--B`,
    `--B\r\n${disp('a')}hello`,
    '--B--',
    '--B'
  ]
  for (const body of other) {
    it(`leaves any other body to the streaming parser, with its parts and errors: ${JSON.stringify(body.slice(-24))}`, async () => {
      expect(await list(requestFiles(received(body), 'B'))).to.deep.equal(await list(multipartFiles(streamChunks(received(body)), 'B')))
    })
  }

  it('reads a body not yet received whole as it comes', async () => {
    const r = new Readable({ read () {} })
    r.push(Buffer.from(`--B\r\n${disp('a')}hel`))
    const got = list(requestFiles(r, 'B'))
    await new Promise(resolve => setImmediate(resolve))
    expect(r.listenerCount('data')).to.equal(1)
    r.push(Buffer.from('lo\r\n--B--\r\n'))
    r.push(null)
    expect(await got).to.deep.equal(['file a hello'])
  })
})
