// gateway.md §2.7: Accept / ?format negotiation (IPIP-0523: ?format always wins).
import { expect } from 'chai'
import { responseFormat } from '../../../server/gateway/format.js'
import { startGateway, type TestGateway } from './helpers.js'

const DIR = 'bafybeifaqksygmsbnqe76kwvxoqxtkzcwssq5jkhuo65ldtqiunr3bxlra'
const ASCII = 'bafkreihhpc5y2pqvl5rbe5uuyhqjouybfs3rvlmisccgzue2kkt5zq6upq'
const DJ = 'baguqeeram5ujjqrwheyaty3w5gdsmoz6vittchvhk723jjqxk7hakxkd47xq'

describe('gateway: format negotiation (§2.7)', () => {
  describe('responseFormat', () => {
    it('maps every ?format value to its media type', () => {
      const pairs: Record<string, string> = {
        raw: 'application/vnd.ipld.raw',
        car: 'application/vnd.ipld.car',
        tar: 'application/x-tar',
        'dag-json': 'application/vnd.ipld.dag-json',
        'dag-cbor': 'application/vnd.ipld.dag-cbor',
        json: 'application/json',
        cbor: 'application/cbor',
        'ipns-record': 'application/vnd.ipfs.ipns-record'
      }
      for (const [f, t] of Object.entries(pairs)) expect(responseFormat(f, []).type, f).to.equal(t)
    })
    it('takes the first Accept entry of interest, in header order, ignoring q-values and wildcards', () => {
      expect(responseFormat(null, ['text/html,application/vnd.ipld.dag-json;q=0.1,application/vnd.ipld.car;q=0.9']).type).to.equal('application/vnd.ipld.dag-json')
      expect(responseFormat(null, ['*/*']).type).to.equal('')
      expect(responseFormat(null, ['text/html']).type).to.equal('')
    })
    it('?format wins; Accept parameters count only when the types match', () => {
      expect(responseFormat('raw', ['application/vnd.ipld.car; dups=y'])).to.deep.equal({ type: 'application/vnd.ipld.raw', params: {} })
      expect(responseFormat('car', ['application/vnd.ipld.car; version=1; dups=y'])).to.deep.equal({ type: 'application/vnd.ipld.car', params: { version: '1', dups: 'y' } })
    })
    it('ignores unknown ?format values', () => {
      expect(responseFormat('nope', ['application/vnd.ipld.raw']).type).to.equal('application/vnd.ipld.raw')
    })
    it('400 for a malformed Accept entry of interest', () => {
      expect(() => responseFormat(null, ['application/vnd.ipld.car; =x'])).to.throw('error while processing the Accept header')
    })
  })

  describe('over HTTP', () => {
    let gw: TestGateway
    before(async () => { gw = await startGateway({ cars: ['gateway-raw-block.car', 'path_gateway_dag/dag-json-traversal.car'] }) })
    after(async () => { await gw.stop() })

    it('?format=car beats Accept raw; ?format=raw beats Accept car', async () => {
      expect((await gw.get(`/ipfs/${DIR}?format=car`, { headers: { Accept: 'application/vnd.ipld.raw' } })).headers['content-type']).to.include('application/vnd.ipld.car')
      expect((await gw.get(`/ipfs/${DIR}?format=raw`, { headers: { Accept: 'application/vnd.ipld.car' } })).headers['content-type']).to.equal('application/vnd.ipld.raw')
    })
    it('sends Content-Location when the format came from Accept only', async () => {
      const res = await gw.get(`/ipfs/${ASCII}`, { headers: { Accept: 'application/vnd.ipld.raw' } })
      expect(res.headers['content-location']).to.equal(`/ipfs/${ASCII}?format=raw`)
      const car = await gw.get(`/ipfs/${DIR}?x=1`, { headers: { Accept: 'application/vnd.ipld.car; dups=y' } })
      expect(car.headers['content-location']).to.equal(`/ipfs/${DIR}?car-dups=y&format=car&x=1`)
      const explicit = await gw.get(`/ipfs/${ASCII}?format=raw`)
      expect(explicit.headers['content-location']).to.equal(undefined)
    })
    it('400 for an unsupported vendor type', async () => {
      const res = await gw.get(`/ipfs/${ASCII}`, { headers: { Accept: 'application/vnd.ipld.foo' } })
      expect(res.status).to.equal(400)
      expect(res.text).to.include('unsupported response format requested')
    })
    it('text/html only matters for directories and DAG codecs', async () => {
      const file = await gw.get(`/ipfs/${ASCII}`, { headers: { Accept: 'text/html' } })
      expect(file.text).to.equal('hello application/vnd.ipld.raw\n')
      const dag = await gw.get(`/ipfs/${DJ}/`, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
      expect(dag.headers['content-type']).to.equal('text/html')
    })
  })
})
