// Bundle the page into dist/ (what the gateway serves at /): index.html, style.css and
// app.js, the TypeScript of src/ with its npm dependencies.
import { build } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";

await rm("dist", { recursive: true, force: true });
await mkdir("dist");
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2022",
  outfile: "dist/app.js",
  sourcemap: true,
  minify: true,
  logLevel: "warning",
});
await copyFile("src/index.html", "dist/index.html");
await copyFile("src/style.css", "dist/style.css");
