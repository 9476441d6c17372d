import { TransactionType } from '../../src-shared/api/bank';
import { DEFAULT_TEMPLATE, DownloadLayout } from '../../src-shared/files';
import { ExpenseSortField, TransactionSortField } from '../../src-shared/search';
import { accountUsage } from './account';
import { dimensionUsage } from './dimension';
import { downloadUsage } from './download';
import { editsUsage } from './edits';
import { expenseUsage } from './expense';
import { exportUsage } from './export';
import { profileUsage } from './profile';
import { reviewUsage } from './review';
import { searchUsage } from './search';
import { showUsage } from './show';
import { statusUsage } from './status';
import { supplierUsage } from './supplier';
import { syncUsage } from './sync';

/**
 * What `satchel COMMAND --help` prints: the command's synopsis, then every option with what it
 * takes and its default. The synopses live beside their commands; the words for each option
 * here, in one place, so that options shared by several commands read the same everywhere.
 */

const profileOption = `  --profile NAME_OR_ID   the organisation, by name or id; needed only when several are connected`;

const filters = (to = '--to') => `Search filters (optional; all given must hold):
  --text T               free text over id, group id, counterparty and account number
  --from YYYY-MM-DD      booked on or after this day
  ${`${to} YYYY-MM-DD`.padEnd(22)} booked on or before this day
  --account ID           a bank account's id (see "satchel account list"); repeatable
  --matched true|false   matched to an expense, or not
  --reviewed true|false  marked reviewed here, or not
  --flagged true|false   flagged here, or not
  --tag T                carrying this review tag
  --type TYPE            ${TransactionType.options.join(', ')}; repeatable
  --currency CUR         an ISO 4217 code such as EUR; repeatable
  --min-amount D         at least this amount, a decimal like 120.50 (a dot, no thousands
  --max-amount D         separators) in the one --currency given; spending is negative,
                         written with "=": --max-amount=-100
  --ignore-sign          compare the amounts' size: 100 to 500 finds -120.00 and 120.00
  --has-note true|false  with a review note here, or without`;

const expenseFilters = `  --text T               free text over description, booking text, merchant, supplier and lines
  --reviewed true|false  marked reviewed here, or not
  --flagged true|false   flagged here, or not
  --tag T                carrying this review tag
  --has-note true|false  with a review note here, or without
  --has-file true|false  with a receipt or invoice, or without
  --booked-on ITEM_ID    booked on this dimension item (see "dimension list --items")
  --account NUMBER       booked on this expense account (its number, or its id)`;

const csvOptions = `  --out FILE.csv         the file to write (required); an existing file only with --force
  --out -                the CSV on stdout instead, for a pipe (no byte-order mark; the
                         summary line then goes to stderr)
  --sort FIELD           transactions: ${TransactionSortField.options.join(', ')}
                         (default bookingDate); expenses: ${ExpenseSortField.options.join(', ')}
                         (default expenseTime)
  --asc                  ascending order (default descending)
  --locale LOCALE        a BCP 47 locale such as de-DE: its decimal separator decides both
                         separators (a decimal comma gives ";" and ","; default en-US: "," and ".")
  --delimiter ,|;|tab    the field separator, over the locale's
  --decimal .|,          the decimal separator, over the locale's
  --force                replace FILE.csv if it exists`;

const help: Record<string, string> = {
  profile: `${profileUsage}

Connects organisations; what a change did is said on stderr (stdout stays empty; only list and
recover take --json, and an option an action does not take is refused, exit 2). A secret is
never an argument: at a terminal it is asked for without
being shown; from a script pipe it in (--client-secret-stdin, --token-stdin) or set
SATCHEL_CLIENT_SECRET (or SATCHEL_TOKEN). The key is checked with the API before it is kept.

Options:
  --name N               the organisation's name in Satchel (add, rename)
  --url URL              the API's http(s) address (add, set-url)
  --client-id ID         the API key id (add, set-key)
  --client-secret-stdin  read the API key secret from standard input
  --token-stdin          read a bearer token from standard input instead of a key
  --demo                 the sandbox's demo organisation (its demo key unless one is given)
  --json                 list as JSON (list); the plan, or what was done, as JSON (recover)
  --force                remove even with unsent edits or review marks (remove)
  --profile NAME_OR_ID   the organisation whose damaged offline copy to rebuild; needed only
                         when several are connected (rebuild)
  --yes                  do the recovery, not only say what it would do (recover)

"profile rebuild" does what the window's "Set aside and rebuild" does for an offline copy that
cannot be opened or that SQLite found damaged: the file is renamed beside itself (never
deleted; the new name is said), a fresh copy is made, and the unsent edits, review marks, tags
and settings that can still be read are kept in it. "satchel sync" then fills it. A copy that
opens is refused (exit 1) and left as it is.

"profile recover" does what the window's "Recover organisations" does when the list of
organisations (profiles.json) cannot be read: without --yes it says what it would do and
changes nothing. With --yes the damaged list is renamed beside itself (never deleted; the new
name is said) and a new list written with every organisation whose offline copy records its
connection, under its old id: its copy, unsent edits, review marks and keychain key are used
as they are (one whose key the keychain lacks is said: enter it again with "profile set-key").
Files of the caches folder that cannot be tied to an organisation are named and left as they
are. A list that reads is refused (exit 1). It never asks: with --json, the plan (without --yes,
"recovered": false and nothing changed, exit 0) or what was done ("recovered": true and
"setAside", the damaged list's new path) is JSON on stdout, and the words above stay on stderr.`,
  sync: `${syncUsage}

Sends the waiting offline edits, then brings every connected organisation (or the one named) up
to date. Progress goes to stderr; each organisation's outcome is a line on stdout. An
organisation whose offline copy is read-only is not synced: said with why in its turn, the
others synced, exit 3 (exit 1 when another one failed too); alone, it is refused at once.

Options:
${profileOption}
  --full                 the repair: read everything again, not only what changed

"sync history" lists the organisation's recorded runs, newest first, as the Sync screen does:
STARTED and FINISHED (UTC, "-" while a run goes on), OUTCOME (succeeded, partial, failed,
cancelled, interrupted or running), RECORDS written, ERRORS and the first of them. It reads the
offline copy only.
  --limit N              the newest N runs, 1 to 200 (default 20)
  --json                 the runs as JSON: counts per resource, every error, and when the
                         newest run that succeeded ended (lastSucceededAt)`,
  search: `${searchUsage}

Bank transactions in the offline copy, a page at a time, with the totals per currency (on stderr:
stdout holds the rows alone).

${filters()}

Options:
${profileOption}
  --sort FIELD           ${TransactionSortField.options.join(', ')}
                         (default bookingDate)
  --asc                  ascending order (default descending)
  --page N               the page, from 1 (default 1)
  --page-size N          rows a page, 1 to 500 (default 50)
  --json                 the page, its totals and each row's review state as JSON (each
                         amount as the API writes it, a decimal string such as "-1234.56",
                         beside its currency and its integer minor units)`,
  expense: `${expenseUsage}

Expenses in the offline copy (no network needed), a page at a time, newest first; the count of
the whole result on stderr (stdout holds the rows alone). Columns: DATE (of the expense),
AMOUNT, SUPPLIER (else the merchant), STATUS, FILES (receipts and invoices), ID (what
"satchel show" and "review mark --expenses --id" take).

Filters (optional; all given must hold):
${expenseFilters}

Options:
${profileOption}
  --all                  deleted expenses too
  --sort FIELD           ${ExpenseSortField.options.join(', ')} (default expenseTime)
  --asc                  ascending order (default descending)
  --page N               the page, from 1 (default 1)
  --page-size N          rows a page, 1 to 500 (default 50)
  --json                 the page, its total and each row's review state as JSON (each amount
                         also as a decimal string such as "-1234.56")`,
  show: `${showUsage}

One record of the offline copy by its id: a bank transaction, an expense, a supplier, a
dimension or a dimension item (whichever holds the id). Prints its fields as "label  value"
lines: amounts as decimals with their currency, its review state (reviewed, flagged, note,
tags), its linked records (an expense's transaction, a transaction's expenses and the rest of
its group), its receipts and invoices ("file" lines, and whether each is downloaded), and the
offline edits of it not yet sent. An id the offline copy does not hold fails (exit 1).

Options:
${profileOption}
  --json                 as JSON: "kind" and the record as the app's detail pane reads it,
                         "edits" the waiting offline edits; each amount also as a decimal
                         string such as "-1234.56"`,
  export: `${exportUsage}

The whole result of a search as CSV for Excel: UTF-8 with a byte-order mark, ISO dates, exact
amounts, the review columns. Transactions, or with "expenses" the expenses.

${filters()}

Expense filters (export expenses):
${expenseFilters}

Options:
${profileOption}
${csvOptions}`,
  download: `${downloadUsage}

Puts the receipts and invoices of a search, a selection, a period or everything into a folder,
with manifest.csv. Run again with the same options, it continues where it stopped.

${filters('--until')}
  (--from/--until alone take every file of the period, expenses without a transaction too)

Options:
  --to DIR               the folder (required); created if missing, nothing in it overwritten
${profileOption}
  --transaction ID       the files of these transactions; repeatable (no filters with ids)
  --expense ID           the files of these expenses; repeatable
  --file ID              these files; repeatable
  --template T           the file names (default "${DEFAULT_TEMPLATE}"); tokens {bookingDate},
                         {counterparty}, {amount}, {currency}, {expenseId}, {originalName},
                         {transactionId}, {fileId}, {supplier}, {account}
  --layout L             ${DownloadLayout.options.join(', ')}: one folder, or one per month,
                         account or supplier (default flat)`,
  review: `${reviewUsage}

Review marks live only in this offline copy; export them to hand them to a colleague. Export
and import say how far they are on stderr; stdout gets their one summary line.

Changes (review mark takes exactly one):
  --reviewed | --unreviewed     mark reviewed, or not
  --flag REASON | --unflag      flag with a reason, or take the flag off
  --note TEXT | --clear-note    set the note, or remove it
  --tag T... | --untag T...     add or remove tags; repeatable

Which records (review mark):
  --id ID                a transaction's id; repeatable (unknown ids change nothing)
  --expenses             the --id values are expenses
  search filters         as for search, but --is-reviewed true|false for the review state,
                         and no --tag filter (--tag is a change here)

Options:
${profileOption}
  --json                 attention as JSON
  --out FILE.json        the file review export writes (required)
  --force                replace FILE.json if it exists (export)`,
  account: `${accountUsage}

The bank accounts of the offline copy: id, name, currency and status. The id is what --account
takes in search, export and download.

Options:
${profileOption}
  --json                 list as JSON (with each account's number too)`,
  supplier: `${supplierUsage}

A supplier with an offline edit waiting says the edit's state after its status, as "edits list"
words it ("ACTIVE; edit conflict"); in JSON it is "edit": null, or the edit's operationId,
operation and status.

Options:
${profileOption}
  --text T               list those whose name, number, VAT id or IBAN holds T
  --all                  list deleted ones too
  --json                 list as JSON
  --name NAME            the supplier's name (required for create)
  --code C               its supplier number (required for create unless the ERP numbers them)
  --status S             ACTIVE, DEACTIVATED or DELETED
  --vat-id V             its VAT id; one with an EU prefix (DE, FR, EL, XI…) must have that
                         country's format
  --iban I               its IBAN, spaces and lower case allowed; its country, length and
                         check digits are checked, and it is kept without spaces
  --bic B                its BIC (8 or 11 characters); one of another country than the IBAN's
                         is kept with a warning
  --currency CUR         its ISO 4217 currency, such as EUR`,
  dimension: `${dimensionUsage}

A dimension or item with an offline edit waiting says the edit's state after its status, as
"edits list" words it ("ACTIVE; edit pending"); in JSON it is "edit": null, or the edit's
operationId, operation and status ("editPending" is true while any edit of it waits).

Options:
${profileOption}
  --items DIMENSION_ID   list this dimension's items instead of the dimensions
  --all                  list deleted ones too
  --json                 list as JSON
  --name NAME            the name (required to create)
  --code C               the code (required to create)
  --status S             ACTIVE, INACTIVE or DELETED`,
  edits: `${editsUsage}

Offline edits (suppliers, dimensions, their items) wait here until a push or a sync sends them.
retry, discard and resolve say what they did on stderr; push prints its counts on stdout.

Options:
${profileOption}
  --json                 list as JSON
  --mine                 resolve a conflict by sending yours over the server's version
  --theirs               resolve a conflict by dropping yours`,
  status: `${statusUsage}

The app's version, the data folder, whether the keychain answers (or that it is locked, and what
to do), and each organisation's last sync and offline copy: writable, read-only, or that it
cannot be opened; below the table, why and what to do for each copy that is not writable. It
only reports (a read-only copy is read, never migrated or written) and exits 0 whatever it
finds. With none connected, it says so on stderr and exits 0 (the JSON has "profiles": []).

Options:
  --json                 as JSON; each organisation's "cache" is {"readOnly", "problem"}, as the
                         window reads it: null, or why (and "where", for a read-only copy)`,
};

export function commandHelp(command: string): string | undefined {
  const text = help[command];
  return text === undefined
    ? undefined
    : `${text}\n\nEvery command takes --data-dir DIR (default SATCHEL_DATA_DIR, else the app's own folder).\n`;
}
