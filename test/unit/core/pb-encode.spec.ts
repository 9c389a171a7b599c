// core/unixfs/pb.ts encodeLinked: the bytes @ipld/dag-pb's encode writes for nodes with links.
import { expect } from 'chai'
import { encode, type PBLink } from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { identity } from 'multiformats/hashes/identity'
import { encodeLinked } from '../../../core/unixfs/pb.js'

describe('core/unixfs/pb encodeLinked', () => {
  it('writes what @ipld/dag-pb encode writes: names ASCII, multibyte, empty or absent; Tsize 0, large or absent; CIDv0, v1, identity', async () => {
    const names = ['', 'a', 'file-0001.txt', 'FF', 'é', 'ünïcødé 文件 🎉', 'x'.repeat(200), undefined]
    const sizes = [0, 1, 127, 128, 300, 2 ** 32 + 5, 2 ** 53 - 1, undefined]
    const cids = [
      CID.createV0(await sha256.digest(new Uint8Array([1]))),
      CID.createV1(0x55, await sha256.digest(new Uint8Array([2]))),
      CID.createV1(0x70, identity.digest(new Uint8Array(40).fill(7)))
    ]
    let checked = 0
    for (let n = 0; n <= 9; n++) {
      for (const data of [new Uint8Array(0), new Uint8Array([8, 1]), new Uint8Array(300).fill(9)]) {
        const links: PBLink[] = Array.from({ length: n }, (_, i) => {
          const link: PBLink = { Hash: cids[(i + n) % cids.length] }
          const name = names[(i * 3 + n) % names.length]
          const size = sizes[(i * 5 + n) % sizes.length]
          if (name !== undefined) link.Name = name
          if (size !== undefined) link.Tsize = size
          return link
        })
        // dag-pb wants them sorted by name bytes (missing names first)
        links.sort((a, b) => Buffer.compare(Buffer.from(a.Name ?? ''), Buffer.from(b.Name ?? '')))
        expect(Buffer.from(encodeLinked(data, links)).toString('hex'), `${n} links, ${data.length} data bytes`).to.equal(Buffer.from(encode({ Data: data, Links: links })).toString('hex'))
        checked++
      }
    }
    expect(checked).to.equal(30)
  })
})
