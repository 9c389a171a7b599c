// ipfs routing put: store a value (an IPNS record) under a routing key on the DHT.
import { Key } from 'interface-datastore'
import { base32 } from 'multiformats/bases/base32'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { QueryEventType, queryEvent, type QueryEventOutput } from '../../core/routing/index.js'
import { readFileArg } from '../key/common.js'
import { ipnsValidator } from 'ipns/validator'
import type { NameHash } from '../../core/namesys/index.js'
import { unmarshalRecordGo, validateRecordWithName } from '../../core/namesys/record.js'
import { decodePeer, printEvent, routingKey } from './events.js'

export const ERR_ALLOW_OFFLINE = "can't put while offline: pass `--allow-offline` to override"

export const routingPut = defineCommand({
  path: ['routing', 'put'],
  description: 'Write a key/value pair to the routing system.',
  help: "Given a key of the form /foo/bar and a valid value for that key, this will write\nthat value to the routing system with that key.\n\nKeys have two parts: a keytype (foo) and the key name (bar). IPNS uses the\n/ipns keytype, and expects the key name to be a Peer ID. IPNS entries are\nspecifically formatted (protocol buffer).\n\nYou may only use keytypes that are supported in your ipfs binary: currently\nthis is only /ipns. Unless you have a relatively deep understanding of the\ngo-ipfs routing internals, you likely want to be using 'ipfs name publish' instead\nof this.\n\nThe value must be a valid value for the given key type. For example, if the key\nis /ipns/QmFoo, the value must be IPNS record (protobuf) signed with the key\nidentified by QmFoo.",
  status: 'experimental',
  args: [
    { name: 'key', kind: 'string', required: true, description: 'The key to store the value at.' },
    { name: 'value-file', kind: 'file', required: true, stdin: true, description: 'A path to a file containing the value to store.' }
  ],
  options: {
    'allow-offline': { type: 'bool', description: 'When offline, save the IPNS record to the local datastore without broadcasting to the network instead of simply failing.' }
  },
  output: 'ndjson',
  async * run ({ args, options, files, deps, signal }): AsyncGenerator<QueryEventOutput> {
    const data = await readFileArg(files)
    const online = deps.routing != null && deps.libp2p != null
    if (!online && options.allowOffline !== true) throw new RpcError(ERR_ALLOW_OFFLINE)
    const key = routingKey(args[0])
    const name = args[0].split('/')[2]
    const peer = decodePeer(name)
    if (args[0].startsWith('/ipns/')) {
      // IPNS records go through the name system (validated; kept where name resolve and the gateway look)
      const mh = peer.toMultihash() as NameHash
      // boxo's error texts first (record is malformed, signature verification failed, ...)
      try { await validateRecordWithName(unmarshalRecordGo(data), mh) } catch (err) { throw new RpcError((err as Error).message) }
      try { await ipnsValidator(key, data) } catch (err) { throw new RpcError((err as Error).message) }
      await deps.nameSystem.putRecord(mh, data, { network: online, signal })
    } else if (deps.routing != null && online) {
      await deps.routing.putValue(key, data, { signal })
    } else {
      // offline with --allow-offline: kept in the datastore under the key's base32 form (Kubo's offline router)
      await deps.datastore.put(new Key('/dht/record/' + base32.encode(key).slice(1)), data)
    }
    yield queryEvent(QueryEventType.Value, { ID: peer.toString() })
  },
  text: (e) => printEvent(e, false, {
    [QueryEventType.Value]: (obj) => `${obj.ID}\n`
  })
})
