// The read+send limit: a node:http server that sends the given files as one body, each read in place into a few
// reused buffers and written as a chunk, 4 MiB ahead of the socket (page cache -> buffer -> socket: what `cat`
// can reach with two copies per byte; Node has no sendfile to a socket). limits.js runs it in-process;
// `node read-send-server.js LISTFILE` (one path per line) serves it on a free loopback port and prints the port.
import fs from 'node:fs'
import http from 'node:http'
import { fileURLToPath } from 'node:url'

/** an http.Server (not yet listening) whose every answer is the files' bytes in order */
export function readSendServer (files) {
  const free = []
  return http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
    let i = 0
    const pump = () => {
      while (i < files.length) {
        const fd = fs.openSync(files[i++], 'r')
        const size = fs.fstatSync(fd).size
        const buf = free.pop() ?? Buffer.allocUnsafeSlow(size)
        fs.readSync(fd, buf, 0, size, 0)
        fs.closeSync(fd)
        if (!res.write(buf, () => free.push(buf)) && res.writableLength >= 4 * 1024 * 1024) return res.once('drain', pump)
      }
      res.end()
    }
    pump()
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = readSendServer(fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean))
  server.listen(0, '127.0.0.1', () => console.log(server.address().port))
}
