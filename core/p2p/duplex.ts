// A libp2p stream (libp2p 3's event-based MessageStream) as a Node Duplex, with half-close both ways:
// ending the writable side closes the stream for writing (the remote reads EOF), the remote closing its
// writable side ends the readable side, destroying with an error (or before both sides are done) resets it.
// Back-pressure: a full Node read buffer pauses the libp2p stream; a full libp2p send buffer waits for drain.
import { Duplex } from 'node:stream'
import type { Stream } from '@libp2p/interface'
import type { Uint8ArrayList } from 'uint8arraylist'

const isDone = (s: Stream): boolean => s.status === 'closed' || s.status === 'aborted' || s.status === 'reset'

export class StreamDuplex extends Duplex {
  private remoteEnded = false
  private writeGone = false
  /** EOF pushed: later messages (there should be none) are dropped, never pushed after EOF */
  private eof = false

  constructor (readonly stream: Stream) {
    super({ allowHalfOpen: true })
    stream.addEventListener('message', (evt) => {
      const data = (evt as unknown as { data: Uint8Array | Uint8ArrayList }).data
      // listeners run inside libp2p's dispatch: nothing may throw out of them (it would end the process)
      try {
        if (this.eof) return
        if (!this.push(data instanceof Uint8Array ? data : data.subarray()) && stream.readStatus === 'readable') stream.pause()
      } catch {}
    })
    // EOF on 'end' (the remote closed its writable end and every buffered message was dispatched);
    // 'remoteCloseWrite' can come before the last messages
    stream.addEventListener('remoteCloseWrite', () => { this.remoteEnded = true })
    stream.addEventListener('end', () => { this.remoteEnded = true; this.eof = true; this.push(null) })
    stream.addEventListener('close', (evt) => {
      const error = (evt as unknown as { error?: Error }).error
      // after the remote's EOF a reset only ends our direction (go-libp2p's Close is CloseWrite +
      // CloseRead): what we read is still delivered, what we write is dropped
      if (error != null && !this.remoteEnded) this.destroy(error)
      else { this.writeGone = error != null; this.eof = true; this.push(null) }
    })
    if (stream.readableEnded) { this.eof = true; this.push(null) }
  }

  override _read (): void {
    try {
      if (this.stream.readStatus === 'paused') this.stream.resume()
    } catch {}
  }

  override _write (chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.writeGone || this.stream.writeStatus !== 'writable') { cb(); return }
    try {
      if (this.stream.send(chunk)) cb()
      else this.stream.onDrain().then(() => { cb() }, cb)
    } catch (err) {
      cb(err as Error)
    }
  }

  override _final (cb: (err?: Error | null) => void): void {
    if (this.stream.writeStatus !== 'writable') { cb(); return }
    this.stream.close().then(() => { cb() }, cb)
  }

  override _destroy (err: Error | null, cb: (err?: Error | null) => void): void {
    if (!isDone(this.stream) && (err != null || !(this.readableEnded && this.writableFinished))) {
      this.stream.abort(err ?? new Error('stream destroyed'))
    }
    cb(err)
  }
}
