import { defineConfig } from 'vite';

/**
 * Built to `dist/`, served by the gateway under `/console/` (services/gateway/src/http/console.ts).
 * Everything the page loads is in the bundle: no CDN, no fonts, no tiles.
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Leaflet's few images are small: inlined as data: URLs, which the CSP's img-src allows.
    assetsInlineLimit: 8192,
    sourcemap: false,
    reportCompressedSize: false,
    // The basemap chunk is large by nature (Natural Earth 1:50m) and outside the budget; scripts/bundle-budget.mjs checks the rest.
    chunkSizeWarningLimit: 1024,
  },
});
