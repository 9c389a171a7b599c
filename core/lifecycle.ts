// Startable services (libp2p/Helia style): started in order, stopped in reverse; a failed start unwinds.
export interface Startable {
  beforeStart?: () => void | Promise<void>
  start: () => void | Promise<void>
  afterStart?: () => void | Promise<void>
  beforeStop?: () => void | Promise<void>
  stop: () => void | Promise<void>
  afterStop?: () => void | Promise<void>
}

export const isStartable = (x: unknown): x is Startable =>
  x != null && typeof (x as Startable).start === 'function' && typeof (x as Startable).stop === 'function'

export async function startAll (services: Startable[]): Promise<void> {
  const started: Startable[] = []
  try {
    for (const s of services) await s.beforeStart?.()
    for (const s of services) { await s.start(); started.push(s) }
    for (const s of services) await s.afterStart?.()
  } catch (err) {
    await stopAll(started).catch(() => {})
    throw err
  }
}

export async function stopAll (services: Startable[]): Promise<void> {
  const rev = [...services].reverse()
  const errors: unknown[] = []
  for (const phase of ['beforeStop', 'stop', 'afterStop'] as const) {
    for (const s of rev) {
      try { await s[phase]?.() } catch (err) { errors.push(err) }
    }
  }
  if (errors.length > 0) throw errors[0]
}
