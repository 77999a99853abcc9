// Validates Kubernetes objects (a JSON array, from k8s_check.py) with the
// OpenAPI schemas of Kubernetes as compiled by the npm package
// kubernetes-models (installed by scripts/setup.sh --with-test-servers
// into a cache outside the tree). Prints one line per object; exit 1 when
// one is invalid or of a kind this script does not know.
//   node k8s_validate.mjs NODE_MODULES_DIR OBJECTS.json
import { readFileSync } from "node:fs";

const [modules, file] = process.argv.slice(2);
const models = {
  "v1/ConfigMap": "v1/ConfigMap.js",
  "v1/PersistentVolumeClaim": "v1/PersistentVolumeClaim.js",
  "batch/v1/Job": "batch/v1/Job.js",
};
let bad = 0;
for (const obj of JSON.parse(readFileSync(file, "utf8"))) {
  const key = `${obj.apiVersion}/${obj.kind}`;
  const name = `${key} ${obj.metadata?.name}`;
  if (!models[key]) {
    console.log(`${name}: no schema here for this kind`);
    bad = 1;
    continue;
  }
  const mod = await import(`${modules}/kubernetes-models/${models[key]}`);
  const Model = mod[obj.kind];
  try {
    new Model(obj).validate();
    console.log(`${name}: valid`);
  } catch (e) {
    console.log(`${name}: ${e.message}`);
    bad = 1;
  }
}
process.exit(bad);
