#!/usr/bin/env node
// What each image holds: the files of one component's workspace dependency closure, and nothing
// else. The Dockerfile's build stage copies exactly this list into the image of each target, and
// test/infra/image-files.test.ts checks the list (and runs the component from a copy of it), so
// what is checked is what ships, without a container engine.
//
//   node scripts/image-files.mjs <target>                   the files, one per line
//   node scripts/image-files.mjs <target> --json            {target, workspaces, packages, files}
//   node scripts/image-files.mjs <target> --copy-to <dir>   copies them under <dir> (symlinks kept)
//   node scripts/image-files.mjs --targets                  the targets, one per line
//
// Targets: `gateway`, each service under services/ (`people`, ...), and `all-in-one` (every
// component, for `crm start` with embedded backends).
//
// The closure is read off the installed tree (in the image's build stage, what `npm ci` installed
// from package-lock.json): from the `crm` command line (packages/cli) and the target's own
// workspace, follow `dependencies`, `optionalDependencies` and `peerDependencies` (never
// `devDependencies`), resolving each name the way Node does from the requiring package's folder. The command line depends on every component, so from it those edges
// are followed only towards the target's own component: `crm start people` loads only people
// (packages/cli/src/components/load.ts).
import { copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = 'packages/cli';
/** Files every image runs besides node_modules and workspaces: the container health check. */
const EXTRA_FILES = ['infra/docker/healthcheck.cjs'];

const manifests = new Map();
/** The package.json of the package at a location (a folder relative to the root), or undefined. */
function manifest(location) {
  if (!manifests.has(location)) {
    const file = path.join(ROOT, location, 'package.json');
    manifests.set(location, existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
  }
  return manifests.get(location);
}
const isLink = (location) => location.includes('node_modules/') && lstatSync(path.join(ROOT, location)).isSymbolicLink();
/** The folder a workspace link points at, relative to the root. */
const linkTarget = (location) => path.relative(ROOT, realpathSync(path.join(ROOT, location))).split(path.sep).join('/');

/** Workspace folder of each component: the gateway, and every service under services/. */
export function componentWorkspaces() {
  const components = { gateway: 'gateway' };
  for (const dir of readdirSync(path.join(ROOT, 'services')).sort()) {
    if (manifest(`services/${dir}`)) components[dir] = `services/${dir}`;
  }
  return components;
}

/** Where `name` required from the package at `from` resolves, as a lockfile location (Node's lookup). */
function resolve(from, name) {
  const parts = from ? from.split('/') : [];
  for (let i = parts.length; i >= 0; i--) {
    if (i > 0 && parts[i - 1] === 'node_modules') continue;
    const candidate = [...parts.slice(0, i), 'node_modules', name].join('/');
    if (manifest(candidate)) return candidate;
  }
  return undefined;
}

export function closure(target) {
  const components = componentWorkspaces();
  if (target !== 'all-in-one' && !components[target]) {
    throw new Error(`unknown target "${target}"; expected one of ${[...Object.keys(components), 'all-in-one'].join(', ')}`);
  }
  const otherComponents = new Set(
    Object.entries(components)
      .filter(([name]) => target !== 'all-in-one' && name !== target)
      .map(([, location]) => location),
  );
  const included = new Set(); // folders: packages, workspaces, and the links to them
  const queue = [CLI, ...(target === 'all-in-one' ? Object.values(components) : [components[target]])];
  while (queue.length) {
    const location = queue.shift();
    if (included.has(location)) continue;
    if (isLink(location)) {
      included.add(location);
      queue.push(linkTarget(location));
      continue;
    }
    const entry = manifest(location);
    if (!entry) throw new Error(`no package at ${location}: run npm ci`);
    included.add(location);
    const optional = new Set([
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name),
    ]);
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}),
    ];
    for (const name of new Set(names)) {
      const found = resolve(location, name);
      if (!found) {
        if (optional.has(name)) continue;
        throw new Error(`${location} depends on ${name}, which is not installed: run npm ci`);
      }
      const real = isLink(found) ? linkTarget(found) : found;
      // The command line reaches every component; an image holds only its own.
      if (location === CLI && otherComponents.has(real)) continue;
      queue.push(found);
    }
  }
  return [...included].sort();
}

/** The files of one workspace that run: package.json, `bin/`, and `dist/` without types and maps. */
function workspaceFiles(location) {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, location, 'package.json'), 'utf8'));
  const roots = new Set(['dist', 'bin', ...(manifest.files ?? [])]);
  const files = [`${location}/package.json`];
  for (const root of roots) {
    const dir = path.join(ROOT, location, root);
    if (!existsSync(dir)) continue;
    files.push(...walk(dir, (rel) => !/\.(d\.ts|d\.ts\.map|js\.map|tsbuildinfo)$/.test(rel) && !/(^|\/)node_modules(\/|$)/.test(rel)).map((f) => `${location}/${root}/${f}`));
  }
  return files.map((f) => f.replace(/\/\.\//g, '/'));
}

/** Every file under `dir`, as paths relative to it; nested node_modules are packages of their own. */
function walk(dir, keep = () => true, prefix = '') {
  const out = [];
  if (!statSync(dir).isDirectory()) return [prefix.replace(/\/$/, '')].filter(Boolean);
  for (const name of readdirSync(dir).sort()) {
    const rel = `${prefix}${name}`;
    const full = path.join(dir, name);
    const stat = lstatSync(full);
    if (stat.isDirectory()) {
      if (name === 'node_modules') continue;
      out.push(...walk(full, keep, `${rel}/`));
    } else if (keep(rel)) {
      out.push(rel);
    }
  }
  return out;
}

export function imageFiles(target) {
  const locations = closure(target);
  const files = [...EXTRA_FILES];
  for (const location of locations) {
    if (isLink(location)) files.push(location); // the symlink node_modules/@crm/<name> -> its workspace
    else if (!location.includes('node_modules/')) files.push(...workspaceFiles(location));
    else files.push(...walk(path.join(ROOT, location)).map((f) => `${location}/${f}`));
  }
  return {
    target,
    workspaces: locations.filter((l) => !l.includes('node_modules/')),
    packages: locations.filter((l) => l.includes('node_modules/') && !isLink(l)),
    files: [...new Set(files)].sort(),
  };
}

/** Copies the files under `dest`, keeping symlinks as symlinks (hard links when `link` and possible). */
export function copyTo(files, dest, { link = false } = {}) {
  for (const file of files) {
    const from = path.join(ROOT, file);
    const to = path.join(dest, file);
    mkdirSync(path.dirname(to), { recursive: true });
    if (lstatSync(from).isSymbolicLink()) {
      symlinkSync(readlinkSync(from), to);
    } else if (link) {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
      }
    } else {
      copyFileSync(from, to);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--targets') {
    process.stdout.write(`${[...Object.keys(componentWorkspaces()), 'all-in-one'].join('\n')}\n`);
  } else {
    const [target, ...options] = args;
    if (!target) {
      process.stderr.write('usage: image-files.mjs <target> [--json | --copy-to <dir> [--link]] | --targets\n');
      process.exit(2);
    }
    const result = imageFiles(target);
    const copyIndex = options.indexOf('--copy-to');
    if (copyIndex >= 0) copyTo(result.files, path.resolve(options[copyIndex + 1]), { link: options.includes('--link') });
    else if (options.includes('--json')) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else process.stdout.write(`${result.files.join('\n')}\n`);
  }
}
