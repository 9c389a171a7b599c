// How CIDs are written in output: --cid-base and --upgrade-cidv0-in-output (Kubo cmdenv/cidbase.go).
import { CID } from 'multiformats/cid'
import { RpcError } from './errors.js'
import { multibase } from './multibase.js'

export interface CidEncoder {
  encode: (cid: CID) => string
}

export interface CidEncoderInit {
  cidBase?: string
  upgradeCidv0InOutput?: boolean
}

export function createCidEncoder ({ cidBase, upgradeCidv0InOutput }: CidEncoderInit): CidEncoder {
  if (cidBase == null || cidBase === '') {
    return {
      encode: (cid) => (upgradeCidv0InOutput === true && cid.version === 0 ? cid.toV1() : cid).toString()
    }
  }
  const base = multibase(cidBase)
  if (base == null) throw new RpcError(`unsupported multibase encoding: ${cidBase}`)
  // any base other than base58btc upgrades CIDv0 (it cannot be written in another base)
  const upgrade = upgradeCidv0InOutput ?? base.name !== 'base58btc'
  return {
    encode: (cid) => {
      const c = upgrade && cid.version === 0 ? cid.toV1() : cid
      return c.version === 0 ? c.toString() : c.toString(base.encoder)
    }
  }
}

/** Parse a CID string in any multibase, with Kubo's error text. */
export function parseCid (text: string): CID {
  try {
    if (text.startsWith('Q') || text.startsWith('1')) return CID.parse(text)
    const base = multibase(String.fromCodePoint(text.codePointAt(0) ?? 0))
    if (base == null) throw new Error('selected encoding not supported')
    return CID.parse(text, base.decoder)
  } catch (err) {
    throw new RpcError(`invalid cid: ${(err as Error).message}`)
  }
}
