// The gateway's /p2p/ path parsing (Kubo core/corehttp/p2p_proxy_test.go cases and its error text).
import { expect } from 'chai'
import { parseP2pPath } from '../../../server/gateway/p2p-proxy.js'

const PEER = 'QmT8JtU54XSmC38xSb1XHFSMm775VuTeajg7LWWWTAwzxT'

describe('gateway /p2p/ proxy paths', () => {
  it("parses Kubo's valid cases: /http and /x/<name>/http, the rest is the path", () => {
    for (const [name, path] of [['/http', 'path/to/index.txt'], ['/x/custom/http', 'path/to/index.txt'], ['/x/custom/http', 'http/path/to/index.txt']]) {
      const r = parseP2pPath(`/p2p/${PEER}${name}/${path}`)
      expect(r).to.not.be.a('string')
      if (typeof r === 'string') return
      expect([r.target, r.protocol, r.httpPath, r.peer.toString()]).to.deep.equal([PEER, name, path, PEER])
    }
    const cid = parseP2pPath('/p2p/k51qzi5uqu5dlmbel1sd8rs4emr3bfosk9bm4eb42514r4lakt4oxw3a3fa2tm/http/')
    expect(cid).to.not.be.a('string')
  })

  it("refuses Kubo's invalid cases with its message", () => {
    for (const path of ['/p2p/http/foobar', `/p2p/${PEER}/x/custom/foobar`, '/p2p/DERPDERPDERP', '/p2p/invalid_peer/http/index.txt', `/p2p/${PEER}/http`]) {
      expect(parseP2pPath(path), path).to.equal(`invalid request path '${path}'`)
    }
  })
})
