// What a command may ask about the running node: is it a daemon, is it online, stop it.
export interface NodeControl {
  /** true inside `tsipfs daemon` */
  readonly daemon: boolean
  /** true when libp2p runs */
  readonly online: boolean
  readonly startedAt: Date
  /** API listener multiaddrs, once listening */
  apiAddrs: string[]
  gatewayAddrs: string[]
  /** ask the daemon to stop (graceful); resolves when stopping has begun */
  shutdown: () => void
}

export function createNodeControl (init: { daemon: boolean, online: boolean, shutdown?: () => void }): NodeControl {
  return {
    daemon: init.daemon,
    online: init.online,
    startedAt: new Date(),
    apiAddrs: [],
    gatewayAddrs: [],
    shutdown: init.shutdown ?? (() => {})
  }
}
