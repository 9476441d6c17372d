import type {
  BankAccount,
  Department,
  Dimension,
  DimensionItem,
  ExpenseAccount,
  PaymentTerm,
  Supplier,
  TaxRate,
  Team,
  User,
} from '../../src-shared/api';
import { COST_CARRIER_DIMENSION_ID, COST_CENTER_DIMENSION_ID } from '../../src-shared/api';
import { createRandom, uuidFor } from './random';
import { CITIES, FIRST_NAMES, LAST_NAMES, STREETS, supplierName } from './names';
import { isoFromSeconds } from './time';

/** Namespaces keep derived ids of different record kinds apart. */
export const NS = {
  org: 1,
  account: 2,
  supplier: 3,
  dimension: 4,
  item: 5,
  expenseAccount: 6,
  taxRate: 7,
  user: 8,
  team: 9,
  department: 10,
  paymentTerm: 11,
  group: 12,
  expense: 13,
  line: 14,
  file: 15,
  transaction: 16,
} as const;

export interface Wallet extends BankAccount {
  /** Opening balance in minor units, before the first generated transaction. */
  openingMinor: number;
  /** Credit limit in minor units (credit wallets). */
  creditLimitMinor: number;
  /** Last day (days since epoch) with transactions; closed wallets stop early. */
  lastDay: number;
}

export interface Reference {
  organisationId: string;
  wallets: Wallet[];
  expenseAccounts: ExpenseAccount[];
  taxRates: (TaxRate & { basisPoints: number })[];
  users: User[];
  teams: Team[];
  departments: Department[];
  paymentTerms: PaymentTerm[];
}

const WALLETS: readonly [string, string, 'CREDIT' | 'DEBIT', 'ACTIVE' | 'CLOSED', string][] = [
  ['Main EUR wallet', 'EUR', 'DEBIT', 'ACTIVE', 'DE89370400440532013000'],
  ['Corporate cards EUR', 'EUR', 'CREDIT', 'ACTIVE', 'DE02120300000000202051'],
  ['USD wallet', 'USD', 'DEBIT', 'ACTIVE', 'LT121000011101001000'],
  ['GBP wallet', 'GBP', 'DEBIT', 'ACTIVE', 'GB29NWBK60161331926819'],
  ['Old travel wallet EUR', 'EUR', 'DEBIT', 'CLOSED', 'DE75512108001245126199'],
];

export function generateReference(
  seed: number,
  firstDay: number,
  lastDay: number,
  createSec: number,
): Reference {
  const stamp = isoFromSeconds(createSec);
  const wallets: Wallet[] = WALLETS.map(([name, currency, fundingType, status, accountNumber], i) => ({
    id: uuidFor(seed, NS.account, i),
    name,
    currency,
    fundingType,
    status,
    accountNumber,
    openingMinor: fundingType === 'CREDIT' ? 0 : 5_000_000 + i * 1_000_000,
    creditLimitMinor: fundingType === 'CREDIT' ? 5_000_000 : 0,
    lastDay: status === 'CLOSED' ? firstDay + 365 : lastDay,
  }));
  const accounts = [
    ['4930', 'Office supplies'],
    ['4940', 'Magazines and books'],
    ['4650', 'Business meals'],
    ['4670', 'Travel expenses employees'],
    ['4660', 'Travel costs employees'],
    ['4673', 'Train tickets'],
    ['4674', 'Air travel'],
    ['4676', 'Hotel and lodging'],
    ['4530', 'Vehicle running costs'],
    ['4540', 'Vehicle repairs'],
    ['4910', 'Postage'],
    ['4920', 'Telephone'],
    ['4925', 'Internet'],
    ['4964', 'Software licences'],
    ['4970', 'Bank charges'],
    ['4980', 'Operating supplies'],
    ['4600', 'Advertising'],
    ['4900', 'Other operating expenses'],
    ['4950', 'Legal and consulting'],
    ['4955', 'Bookkeeping costs'],
    ['4360', 'Insurance'],
    ['4210', 'Rent'],
    ['4240', 'Energy'],
    ['4806', 'Maintenance of hardware and software'],
  ] as const;
  const expenseAccounts: ExpenseAccount[] = accounts.map(([number, name], i) => ({
    id: uuidFor(seed, NS.expenseAccount, i),
    name,
    number,
    status: i === 1 ? 'INACTIVE' : 'ACTIVE',
    createTime: stamp,
    updateTime: stamp,
  }));
  const rates = [
    ['VAT 19 %', 'STANDARD', 1900, 'DE'],
    ['VAT 7 %', 'REDUCED', 700, 'DE'],
    ['VAT 0 %', 'ZERO', 0, 'DE'],
    ['Tax exempt', 'EXEMPT', 0, 'DE'],
    ['Reverse charge EU', 'REVERSE_CHARGE', 0, 'DE'],
    ['UK VAT 20 %', 'STANDARD', 2000, 'GB'],
    ['UK VAT 5 %', 'REDUCED', 500, 'GB'],
    ['US no VAT', 'EXEMPT', 0, 'US'],
  ] as const;
  const taxRates = rates.map(([name, type, basisPoints, country], i) => ({
    id: uuidFor(seed, NS.taxRate, i),
    name,
    type,
    rate: (basisPoints / 100).toFixed(2),
    country,
    status: 'ACTIVE' as const,
    basisPoints,
  }));
  const teams: Team[] = ['Finance', 'Sales', 'Engineering', 'Operations', 'Marketing'].map((name, i) => ({
    id: uuidFor(seed, NS.team, i),
    name,
    managerUserId: uuidFor(seed, NS.user, i),
  }));
  const departments: Department[] = [
    ['Management', 'D100'],
    ['Finance and Accounting', 'D200'],
    ['Sales', 'D300'],
    ['Research and Development', 'D400'],
    ['Operations', 'D500'],
    ['Human Resources', 'D600'],
  ].map(([name, code], i) => ({
    id: uuidFor(seed, NS.department, i),
    name: name as string,
    code: code as string,
  }));
  const users = generateUsers(seed, teams, departments);
  const paymentTerms: PaymentTerm[] = [
    ['Due immediately', 0, 0, '0.00'],
    ['Net 14', 14, 0, '0.00'],
    ['Net 30', 30, 0, '0.00'],
    ['2 % 10, net 30', 30, 10, '2.00'],
    ['Net 60', 60, 0, '0.00'],
  ].map(([name, dueDays, discountDays, discountPercent], i) => ({
    id: uuidFor(seed, NS.paymentTerm, i),
    name: name as string,
    dueDays: dueDays as number,
    discountDays: discountDays as number,
    discountPercent: discountPercent as string,
    currency: null,
  }));
  return {
    organisationId: uuidFor(seed, NS.org, 0),
    wallets,
    expenseAccounts,
    taxRates,
    users,
    teams,
    departments,
    paymentTerms,
  };
}

const ROLE_SETS = [
  ['ADMIN', 'ACCOUNTANT'],
  ['ACCOUNTANT'],
  ['APPROVER', 'EMPLOYEE'],
  ['EMPLOYEE'],
  ['EMPLOYEE', 'PURCHASER'],
  ['EMPLOYEE'],
  ['PURCHASER'],
] as const;

function generateUsers(seed: number, teams: Team[], departments: Department[]): User[] {
  const random = createRandom(seed, NS.user);
  return Array.from({ length: 30 }, (_, i) => {
    const firstName = FIRST_NAMES[i % FIRST_NAMES.length] as string;
    const lastName = LAST_NAMES[(i * 7) % LAST_NAMES.length] as string;
    const ascii = `${firstName}.${lastName}`
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z.]/g, '');
    return {
      id: uuidFor(seed, NS.user, i),
      firstName,
      lastName,
      email: `${ascii}@demo-satchel.example`,
      roles: [...(ROLE_SETS[i % ROLE_SETS.length] ?? ['EMPLOYEE'])],
      teamId: random.pick(teams).id,
      departmentId: random.pick(departments).id,
      status: i % 11 === 10 ? 'INACTIVE' : 'ACTIVE',
    };
  });
}

export function generateSuppliers(
  seed: number,
  count: number,
  firstSec: number,
  lastSec: number,
): Supplier[] {
  const random = createRandom(seed, NS.supplier);
  return Array.from({ length: count }, (_, i) => {
    const id = uuidFor(seed, NS.supplier, i);
    const name = supplierName(i);
    const number = String(70001 + i);
    const created = firstSec + Math.floor(((lastSec - firstSec) * i) / count) + random.int(0, 3600);
    const updated = random.chance(0.4)
      ? created + random.int(3600, lastSec - created > 3600 ? lastSec - created : 3600)
      : created;
    const [city, postalCode, country] = random.pick(CITIES);
    const status = random.chance(0.05) ? 'DEACTIVATED' : random.chance(0.02) ? 'DELETED' : 'ACTIVE';
    return {
      id,
      name,
      number,
      status,
      vatIdNo: `${country}${String(100000000 + random.int(0, 899999999))}`,
      currency: country === 'GB' ? 'GBP' : country === 'CH' ? 'CHF' : 'EUR',
      iban: `${country}${String(random.int(10, 99))}${String(random.uint32()).padStart(10, '0')}${String(random.int(100000, 999999))}`,
      bic: `${name
        .slice(0, 4)
        .toUpperCase()
        .replace(/[^A-Z]/g, 'X')}${country}2X`,
      address: { street: `${random.pick(STREETS)} ${random.int(1, 180)}`, postalCode, city, country },
      externalUserId: null,
      createTime: isoFromSeconds(created),
      updateTime: isoFromSeconds(Math.min(updated, lastSec)),
      supplierId: id,
      supplierName: name,
      supplierNumber: number,
    };
  });
}

const DIMENSIONS: readonly [string, string, 'ACTIVE' | 'INACTIVE' | 'DELETED', readonly string[]][] = [
  [
    'Cost center',
    'KOST1',
    'ACTIVE',
    [
      '1000 Management',
      '2000 Sales',
      '2100 Sales DACH',
      '2200 Sales UK',
      '3000 Engineering',
      '3100 Platform',
      '4000 Operations',
      '5000 Marketing',
      '6000 Finance',
      '7000 People',
      '8000 Legal',
      '9000 Shared services',
    ],
  ],
  [
    'Cost carrier',
    'KOST2',
    'ACTIVE',
    [
      'P-100 Product Alpha',
      'P-200 Product Beta',
      'P-300 Consulting',
      'P-400 Support',
      'P-500 Internal',
      'P-600 Research',
      'P-700 Events',
      'P-800 Hardware',
    ],
  ],
  [
    'Project',
    'PROJ',
    'ACTIVE',
    [
      'Website relaunch',
      'ERP migration',
      'Office move Hamburg',
      'Trade fair Munich',
      'Customer summit',
      'Mobile app',
      'Data warehouse',
      'Audit 2025',
      'Hiring campaign',
      'Brand refresh',
    ],
  ],
  ['Region', 'REG', 'INACTIVE', ['North', 'South', 'East', 'West', 'International']],
  ['Legacy division', 'LEGACY', 'DELETED', ['Print', 'Retail', 'Wholesale']],
];

export function generateDimensions(
  seed: number,
  createSec: number,
): { dimensions: Dimension[]; items: DimensionItem[] } {
  const stamp = isoFromSeconds(createSec);
  const later = isoFromSeconds(createSec + 200 * 86_400);
  const items: DimensionItem[] = [];
  const dimensions = DIMENSIONS.map(([name, code, status, names], d): Dimension => {
    const id =
      d === 0
        ? COST_CENTER_DIMENSION_ID
        : d === 1
          ? COST_CARRIER_DIMENSION_ID
          : uuidFor(seed, NS.dimension, d);
    names.forEach((itemName, k) => {
      const itemStatus =
        status === 'DELETED' ? 'DELETED' : k === names.length - 1 && d < 3 ? 'INACTIVE' : 'ACTIVE';
      items.push({
        id: uuidFor(seed, NS.item, d * 100 + k),
        dimensionId: id,
        name: itemName,
        code: `${code}-${String(k + 1).padStart(3, '0')}`,
        status: itemStatus,
        createTime: stamp,
        updateTime: itemStatus === 'ACTIVE' ? stamp : later,
        deleteTime: itemStatus === 'DELETED' ? later : null,
      });
    });
    return {
      id,
      name,
      code,
      status,
      createTime: stamp,
      updateTime: status === 'ACTIVE' ? stamp : later,
      deleteTime: status === 'DELETED' ? later : null,
    };
  });
  return { dimensions, items };
}
