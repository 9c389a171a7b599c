// ipfs routing get: the best value stored under a routing key (/ipns/<id>, /pk/<id>).
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError } from '../../core/errors.js'
import { QueryEventType, type QueryEventOutput } from '../../core/routing/index.js'
import { routingKey } from './events.js'

export const routingGet = defineCommand({
  path: ['routing', 'get'],
  description: 'Given a key, query the routing system for its best value.',
  help: "Outputs the best value for the given key.\n\nThere may be several different values for a given key stored in the routing\nsystem; in this context 'best' means the record that is most desirable. There is\nno one metric for 'best': it depends entirely on the key type. For IPNS, 'best'\nis the record that is both valid and has the highest sequence number (freshest).\nDifferent key types can specify other 'best' rules.",
  status: 'experimental',
  args: [{ name: 'key', kind: 'string', required: true, variadic: true, description: 'The key to find a value for.' }],
  output: 'ndjson',
  async * run ({ args, options, deps, signal }): AsyncGenerator<QueryEventOutput> {
    if (deps.routing == null || deps.libp2p == null) throw new NotOnlineError('this action must be run in online mode, try running \'ipfs daemon\' first')
    const key = routingKey(args[0])
    // --offline on a running daemon: Kubo's offline CoreAPI router, the records the node holds only
    const local = options.offline === true ? deps.routing.getLocalValue : undefined
    const value = local != null ? await local(key) : await deps.routing.getValue(key, { signal })
    // Kubo emits a routing.QueryEvent value, not a pointer: its MarshalJSON (sorted keys) is not used and the
    // struct's field order shows
    yield { ID: '', Type: QueryEventType.Value, Responses: null, Extra: Buffer.from(value).toString('base64') }
  },
  // the raw value bytes, as Kubo writes them (a string would be re-encoded as UTF-8)
  async cliRender (outcome, _call, io) {
    if (outcome.kind !== 'ndjson') return
    for await (const e of outcome.items) io.stdout.write(Buffer.from((e as QueryEventOutput).Extra, 'base64'))
  },
  // Kubo's CLI decodes into *routing.QueryEvent and re-encodes with its MarshalJSON: sorted keys
  cliJson: (e) => ({ Extra: e.Extra, ID: e.ID, Responses: e.Responses, Type: e.Type }),
  text: (e) => Buffer.from(e.Extra, 'base64').toString('latin1'),
  textBytes: true
})
