import * as fs from 'node:fs';
import * as path from 'node:path';
import * as protobuf from 'protobufjs';
import { protoRoot } from '../index';

/**
 * The contracts of an earlier release, as its components compiled them: what this release's
 * readers and writers meet on the wire during a rolling deployment. Each file under
 * `releases/<commit>/` is `git show <commit>:proto/<file>` with a two-line header; an import the
 * fixture does not hold resolves to this release's file (unchanged since). Loaded as
 * @grpc/proto-loader loads them (keepCase), so `toObject` gives what that release's callers got.
 */
export const PREVIOUS_RELEASE = 'c7e26a9';

export function releaseTypes(commit: string, file: string): protobuf.Root {
  const dir = path.join(__dirname, 'releases', commit);
  const root = new protobuf.Root();
  const resolve = root.resolvePath.bind(root);
  root.resolvePath = (origin, target) => {
    if (path.isAbsolute(target)) return target;
    for (const base of [dir, protoRoot]) if (fs.existsSync(path.join(base, target))) return path.join(base, target);
    return resolve(origin, target);
  };
  root.loadSync(file, { keepCase: true });
  root.resolveAll();
  return root;
}

/** protobufjs's toObject with the loader's options (proto/src/index.ts, loaderOptions). */
export const LOADER_TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };

/** An Integration's fields other than its config, as both releases' directories answer them. */
export const INTEGRATION_FIELDS = {
  id: '01968f1e-0000-7000-8000-000000000001',
  workspace_id: '01968f1e-0000-7000-8000-0000000000aa',
  type: 'smtp',
  name: 'Mail',
  status: 'connected',
  enabled: true,
  created_at: '2026-05-15T10:00:00.000Z',
  updated_at: '2026-05-15T10:00:00.000Z',
} as const;
