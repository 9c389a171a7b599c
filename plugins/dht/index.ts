// dht family: the deprecated `dht query` (the removed dht/* stubs live in plugins/removed).
import type { Plugin } from '../../registry/types.js'
import { dhtQuery } from './query.js'

export function dhtPlugin (): Plugin {
  return {
    name: 'dht',
    commands: [dhtQuery]
  }
}
