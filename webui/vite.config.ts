// Builds the web UI into dist/webui, served by the daemon at /webui/ (server/webui.ts).
import { defineConfig } from 'vite'

export default defineConfig({
  root: import.meta.dirname,
  base: '/webui/',
  publicDir: 'public',
  build: {
    outDir: '../dist/webui',
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    reportCompressedSize: false,
    modulePreload: { polyfill: false }
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn'
})
