// The headless Chromium that the npm package @sparticuz/chromium ships, driven by playwright-core,
// for the tests of what a person looks at (the reference page, the share page). Nothing to
// install beyond `npm install`: the package's own shared libraries (NSS, NSPR, expat, built for
// Amazon Linux 2023) are unpacked beside it and put first on LD_LIBRARY_PATH, so a machine
// without them runs it too.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { type Browser, chromium } from "playwright-core";
import sparticuz from "@sparticuz/chromium";

/** Unpacks the package's al2023.tar.br (its libraries) once; returns the lib folder. */
function bundledLibraries(): string {
  const dir = path.join(os.tmpdir(), "sparticuz-al2023");
  const lib = path.join(dir, "lib");
  if (!fs.existsSync(path.join(lib, "libnss3.so"))) {
    // The package's entry is build/cjs/index.cjs; its archives are in bin/.
    const pkg = path.resolve(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "..");
    fs.mkdirSync(dir, { recursive: true });
    const tar = path.join(dir, `al2023-${process.pid}.tar`);
    fs.writeFileSync(tar, zlib.brotliDecompressSync(fs.readFileSync(path.join(pkg, "bin", "al2023.tar.br"))));
    execFileSync("tar", ["-xf", tar, "-C", dir]);
    fs.rmSync(tar);
  }
  return lib;
}

/** A new headless Chromium. Close pages sparingly: closing one can end the shell's one process. */
export async function launchChromium(): Promise<Browser> {
  const lib = bundledLibraries();
  return await chromium.launch({
    executablePath: await sparticuz.executablePath(),
    env: { ...process.env, LD_LIBRARY_PATH: [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") },
    // The package's own flags (headless shell, no sandbox, …), plus no background networking:
    // this machine reaches no outside host.
    args: [...sparticuz.args, "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
