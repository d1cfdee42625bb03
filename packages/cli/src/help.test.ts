import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { parseArgs } from './args';
import { helpFor, topUsage } from './help';

const CRM = path.resolve(__dirname, '../bin/crm.js');

/** Each command the top-level usage lists, as the words that name it (`admin key create`). */
const listedCommands = topUsage(['people'], ['people'])
  .split('\n')
  .filter((line) => line.startsWith('  crm '))
  .map((line) => {
    // The command, without its description (after two spaces or more), then its words up to the first option.
    const words = line.trim().split(/\s{2,}/)[0]!.split(' ').slice(1);
    const end = words.findIndex((w) => !/^[a-z]+$/.test(w));
    return end === -1 ? words : words.slice(0, end);
  });

describe('crm --help', () => {
  test('--help and -h are flags wherever they stand, even where an option expects its value', () => {
    expect(parseArgs(['admin', 'key', 'create', '--help'])).toEqual({ positional: ['admin', 'key', 'create'], options: {}, help: true });
    expect(parseArgs(['-h'])).toEqual({ positional: [], options: {}, help: true });
    expect(parseArgs(['admin', 'key', 'create', '--workspace', '--help'])).toMatchObject({ help: true, options: {} });
    expect(parseArgs(['admin', 'key', 'list', '--workspace', 'w'])).toEqual({ positional: ['admin', 'key', 'list'], options: { workspace: 'w' } });
    expect(() => parseArgs(['admin', 'key', 'create', '--workspace'])).toThrow('option --workspace needs a value');
  });

  test('every command the usage lists has help of its own, naming it', () => {
    expect(listedCommands.length).toBeGreaterThanOrEqual(12);
    for (const words of listedCommands) {
      const text = helpFor(words);
      expect([words.join(' '), text?.split('\n')[0]]).toEqual([words.join(' '), expect.stringMatching(new RegExp(`^usage: crm ${words.join(' ')}\\b`))]);
    }
    expect(helpFor(['admin', 'key', 'nonsense'])).toBe(helpFor(['admin', 'key']));
    expect(helpFor(['admin', 'user', 'invite', '0190a0b0-0000-7000-8000-000000000000'])).toBe(helpFor(['admin', 'user', 'invite']));
    expect(helpFor([])).toBeUndefined();
  });

  test.each(['--help', '-h', 'help', 'admin --help', 'admin key --help', 'admin key create --help', 'admin workspace list -h', 'start --help', 'check addresses --help'])(
    'crm %s answers its help on stdout and exits 0',
    (command) => {
      const argv = command.split(' ');
      const result = spawnSync(process.execPath, [CRM, ...argv], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, DIRECTORY_ADDR: '' } });
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      const words = argv.filter((a) => !a.startsWith('-') && a !== 'help');
      expect(result.stdout).toMatch(new RegExp(`^usage:${words.length ? ` crm ${words.join(' ')}` : ''}`));
    },
  );

  test('a usage error names the problem on stderr with the help of the command, and exits 2', () => {
    const result = spawnSync(process.execPath, [CRM, 'admin', 'key', 'create', '--workspace', 'w'], { encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^crm: missing --scopes\nusage: crm admin key create /);
  });
});
