/** `--name value` / `--name=value` options, positional words, and `--help`/`-h`, nothing more. */
export interface ParsedArgs {
  positional: string[];
  options: Record<string, string>;
  /** `--help` or `-h` was given, anywhere: the command's help is printed instead of running it. */
  help?: boolean;
}

const HELP_FLAGS = new Set(['--help', '-h']);

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (HELP_FLAGS.has(arg)) {
      // A flag, not an option that takes a value: `crm admin key create --help` asks for help.
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!name) throw new UsageError(`bad option ${arg}`);
    if (eq !== -1) options[name] = arg.slice(eq + 1);
    else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--') || HELP_FLAGS.has(value)) {
        // `crm admin key create --workspace --help`: the help flag is read next, and wins.
        if (value !== undefined && HELP_FLAGS.has(value)) continue;
        throw new UsageError(`option --${name} needs a value`);
      }
      options[name] = value;
      i++;
    }
  }
  return { positional, options, ...(help ? { help } : {}) };
}

export function requireOption(args: ParsedArgs, name: string): string {
  const value = args.options[name];
  if (value === undefined || value === '') throw new UsageError(`missing --${name}`);
  return value;
}

export function rejectUnknownOptions(args: ParsedArgs, allowed: readonly string[]): void {
  for (const name of Object.keys(args.options)) {
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}; expected ${allowed.map((a) => `--${a}`).join(', ')}`);
  }
}
