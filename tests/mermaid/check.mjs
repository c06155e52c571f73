// Parses Mermaid files with real Mermaid 11 (in jsdom) and reports each failure.
// Usage: node check.mjs FILE.mmd... ; prints "ok FILE" or "FAIL FILE: reason"; exit 1 on any failure.
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!DOCTYPE html><body></body>", { pretendToBeVisual: true });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
for (const k of ["navigator", "Element", "HTMLElement", "SVGElement", "DOMParser", "getComputedStyle"]) {
  if (!(k in globalThis) && dom.window[k] !== undefined) {
    try { globalThis[k] = dom.window[k]; } catch { /* read-only in some Node versions */ }
  }
}

const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });

import { readFileSync } from "node:fs";
let failed = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  try {
    const res = await mermaid.parse(text);
    if (!res || res.diagramType !== "flowchart-v2") {
      throw new Error(`unexpected diagram type ${res && res.diagramType}`);
    }
    console.log(`ok ${file}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${file}: ${String(e && e.message || e).split("\n").slice(0, 4).join(" | ")}`);
  }
}
process.exit(failed ? 1 : 0);
