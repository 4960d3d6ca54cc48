// Runs Python files under MicroPython (the official WebAssembly port, npm package
// @micropython/micropython-webassembly-pyscript, installed by `make test` from package.json).
//
//     node tests/micropython/run.mjs MODULE_DIR... -- CODE
//
// Copies every .py of each MODULE_DIR into MicroPython's file system (/lib, on sys.path),
// runs CODE, prints what it prints; exits 1 on an uncaught Python exception, or with the
// value CODE leaves in the variable `status` (0 when it sets none).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const split = process.argv.indexOf("--");
if (split < 0 || split === process.argv.length - 1) {
  console.error("usage: node run.mjs MODULE_DIR... -- CODE");
  process.exit(2);
}
const dirs = process.argv.slice(2, split);
const code = process.argv.slice(split + 1).join(" ");

const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
mp.FS.mkdir("/lib");
for (const dir of dirs) {
  for (const name of readdirSync(dir)) {
    if (name.endsWith(".py")) mp.FS.writeFile(join("/lib", name), readFileSync(join(dir, name)));
  }
}
try {
  mp.runPython("import sys\nif '/lib' not in sys.path: sys.path.append('/lib')\nstatus = 0\n" + code);
} catch (err) {
  process.stderr.write(String(err) + "\n");
  process.exit(1);
}
process.exit(Number(mp.globals.get("status")) ? 1 : 0);
