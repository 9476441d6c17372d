import { parseArgs } from 'node:util';
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET, startSandbox } from './index';

/** `npm run sandbox -- --port 4010 --seed 42 --transactions 5000 …`: see docs/sandbox.md. */

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string', default: '42' },
    transactions: { type: 'string', default: '5000' },
    suppliers: { type: 'string', default: '300' },
    'end-date': { type: 'string', default: '2026-10-31' },
    'client-id': { type: 'string', default: DEMO_CLIENT_ID },
    'client-secret': { type: 'string', default: DEMO_CLIENT_SECRET },
    'read-limit': { type: 'string', default: '180' },
    'write-limit': { type: 'string', default: '20' },
    'window-seconds': { type: 'string', default: '60' },
    'token-ttl': { type: 'string', default: '3600' },
    'erp-supplier-numbers': { type: 'boolean', default: false },
    'file-kb': { type: 'string', default: '0' },
    control: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});

function whole(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    const range = max < Number.MAX_SAFE_INTEGER ? `from ${min} to ${max}` : `of at least ${min}`;
    console.error(`--${name} must be a whole number ${range}, not "${value}".`);
    process.exit(2);
  }
  return number;
}

if (values.help) {
  console.log(
    'Usage: tsx src-sandbox/cli.ts [--port 4010] [--host 127.0.0.1] [--seed 42] [--transactions 5000] [--suppliers 300] [--end-date 2026-10-31] [--client-id ID] [--client-secret SECRET] [--read-limit 180] [--write-limit 20] [--window-seconds 60] [--token-ttl 3600] [--erp-supplier-numbers] [--file-kb 0] [--control]',
  );
  process.exit(0);
}
if (!/^\d{4}-\d{2}-\d{2}$/.test(values['end-date'] ?? '')) {
  console.error('--end-date must look like 2026-10-31.');
  process.exit(2);
}

const started = performance.now();
const sandbox = await startSandbox({
  port: whole('port', values.port, 0),
  host: values.host,
  seed: whole('seed', values.seed, 0),
  transactions: whole('transactions', values.transactions, 0),
  suppliers: whole('suppliers', values.suppliers, 0),
  endDate: values['end-date'],
  clientId: values['client-id'],
  clientSecret: values['client-secret'],
  readLimit: whole('read-limit', values['read-limit'], 1),
  writeLimit: whole('write-limit', values['write-limit'], 1),
  windowSeconds: whole('window-seconds', values['window-seconds'], 1),
  tokenTtlSeconds: whole('token-ttl', values['token-ttl'], 1),
  erpSupplierNumbers: values['erp-supplier-numbers'],
  // Files are kept in memory once served: up to 100 MiB each on average is as far as it goes.
  fileKb: whole('file-kb', values['file-kb'], 0, 102_400),
  control: values.control,
});

console.log(
  `Spend API sandbox 1.44.0 listening on ${sandbox.url} (ready in ${Math.round(performance.now() - started)} ms)`,
);
console.log(`  client id:     ${sandbox.clientId}`);
console.log(`  client secret: ${sandbox.clientSecret}`);
console.log(
  `  token:         curl -s -d grant_type=client_credentials -d client_id=${sandbox.clientId} -d client_secret=${sandbox.clientSecret} -d scope="read write" ${sandbox.url}/oauth2/token`,
);
console.log(`  OpenAPI:       ${sandbox.url}/openapi.json`);
if (sandbox.control) console.log(`  control:       ${sandbox.url}/__control/… (see docs/sandbox.md)`);

const stop = (): void => {
  void sandbox.stop().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
