import fs from "node:fs";
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
const pk = lock.packages;
let added = 0;
for (const [, meta] of Object.entries(pk)) {
  for (const [dep, ver] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = "node_modules/" + dep;
    if (pk[key]) continue;
    // platform from the package name
    const n = dep.split("/")[1];
    const os = /darwin/.test(n) ? "darwin" : /win/.test(n) ? "win32" : "linux";
    const cpu = /arm64/.test(n) ? "arm64" : /ia32/.test(n) ? "ia32" : /ppc64/.test(n) ? "ppc64" : /arm\b|arm$/.test(n) ? "arm" : "x64";
    pk[key] = { version: ver.replace(/^\^/, ""), cpu: [cpu], optional: true, os: [os] };
    if (/musl/.test(n)) pk[key].libc = ["musl"];
    if (/glibc/.test(n)) pk[key].libc = ["glibc"];
    added++;
  }
}
fs.writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");
console.log("added", added);
