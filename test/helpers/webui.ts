// Debian's Chromium driven by playwright-core for the web UI tests: a fresh profile per browser, every
// request recorded (to check the page talks to nobody but the daemon), screenshots in .test-artifacts/webui.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { ROOT } from './daemon.js'
import { ensureDebs } from './debs.js'

export const ARTIFACTS = path.join(ROOT, '.test-artifacts', 'webui')
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** The Chromium binary, installed from Debian's package (test/helpers/debs.ts) when missing. */
export function ensureChromium (): string {
  const why = ensureDebs({ chromium: 'chromium' })
  const found = CANDIDATES.find(p => existsSync(p))
  if (found == null) throw new Error(why ?? 'chromium is not installed')
  return found
}

/** A free TCP port on 127.0.0.1 (for Addresses.Gateway, which the UI reads from the config). */
export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })
}

export interface Browser {
  context: BrowserContext
  page: Page
  /** every URL the pages requested */
  requests: string[]
  shot: (name: string) => Promise<string>
  close: () => Promise<void>
}

export async function openBrowser (opts: { width?: number, height?: number, colorScheme?: 'light' | 'dark' } = {}): Promise<Browser> {
  const executablePath = ensureChromium()
  mkdirSync(ARTIFACTS, { recursive: true })
  const profile = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-webui-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 860 },
    colorScheme: opts.colorScheme ?? 'light',
    acceptDownloads: true,
    timeout: 60_000
  })
  const requests: string[] = []
  context.on('request', r => { requests.push(r.url()) })
  const page = context.pages()[0] ?? await context.newPage()
  page.setDefaultTimeout(15_000)
  return {
    context,
    page,
    requests,
    shot: async (name) => {
      const file = path.join(ARTIFACTS, `${name}.png`)
      await page.screenshot({ path: file, fullPage: true })
      return file
    },
    close: async () => {
      await context.close().catch(() => {})
      rmSync(profile, { recursive: true, force: true })
    }
  }
}

/** Origins of the requested URLs other than the allowed ones (data: and blob: URLs are local). */
export function foreignOrigins (requests: string[], allowed: string[]): string[] {
  const bad = new Set<string>()
  for (const u of requests) {
    if (u.startsWith('data:') || u.startsWith('blob:')) continue
    const o = new URL(u).origin
    if (!allowed.includes(o)) bad.add(o)
  }
  return [...bad]
}
