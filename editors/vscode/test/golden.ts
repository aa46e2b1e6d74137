// Golden files under test/testdata: compared byte for byte, rewritten when
// the UPDATE_GOLDEN environment variable is set (`UPDATE_GOLDEN=1 npm test`).

import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

/** The source testdata directory (tests run from out/test). */
export const TESTDATA = path.resolve(__dirname, '..', '..', 'test', 'testdata');

/** Reads a JSON fixture from testdata. */
export function fixture<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(TESTDATA, name), 'utf8')) as T;
}

/** Compares actual with testdata/name, or rewrites it under UPDATE_GOLDEN. */
export function golden(name: string, actual: string): void {
  const file = path.join(TESTDATA, name);
  if (process.env.UPDATE_GOLDEN) {
    fs.writeFileSync(file, actual);
    return;
  }
  let want: string;
  try {
    want = fs.readFileSync(file, 'utf8');
  } catch (err) {
    assert.fail(`golden file ${file} is missing (run UPDATE_GOLDEN=1 npm test to create it): ${String(err)}`);
  }
  assert.strictEqual(actual, want, `${name} differs from the golden file (UPDATE_GOLDEN=1 npm test rewrites it)`);
}
