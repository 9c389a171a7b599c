// Shared by the benchmarks: both daemons run with the same flatfs durability.
import fs from 'node:fs'
import path from 'node:path'

/** Set `sync` on every flatfs mount of Datastore.Spec in a repo's config file (Kubo and tsipfs alike). */
export function setFlatfsSync (repo, sync) {
  const file = path.join(repo, 'config')
  const config = JSON.parse(fs.readFileSync(file, 'utf8'))
  const visit = (spec) => {
    if (spec == null || typeof spec !== 'object') return
    if (spec.type === 'flatfs') spec.sync = sync
    for (const child of spec.mounts ?? []) visit(child)
    visit(spec.child)
  }
  visit(config.Datastore?.Spec)
  fs.writeFileSync(file, JSON.stringify(config, null, 2))
}
