import { OfflineScope } from '../../../src-shared/files';

const GIB = 1024 ** 3;

/** Only plain decimal numbers: Number() would also read "0x10" as 16 and "1e3" as 1000. */
const WHOLE = /^\d+$/;
const DECIMAL = /^(\d+([.,]\d*)?|[.,]\d+)$/;

export const DAYS_EMPTY = 'Enter how many days to keep, such as 90.';
export const DAYS_FORMAT = 'Enter the days as a whole number, such as 90.';
export const BUDGET_FORMAT = 'Enter the budget in GB, such as 2 or 0.5.';

export type OfflineFormResult =
  { ok: true; scope: OfflineScope } | { ok: false; errors: Partial<Record<'days' | 'budgetBytes', string>> };

/**
 * The offline form's text as a scope, or what is wrong on each field. The days count only with
 * "Files of the last days"; otherwise the field is disabled and what it holds, if it is no
 * valid number of days, leaves the saved one in place.
 */
export function parseOfflineForm(
  form: { mode: OfflineScope['mode']; days: string; budget: string },
  savedDays: number,
): OfflineFormResult {
  const errors: Partial<Record<'days' | 'budgetBytes', string>> = {};
  const daysText = form.days.trim();
  const typedDays = WHOLE.test(daysText) ? Number(daysText) : null;
  let days = savedDays;
  if (form.mode === 'recent') {
    if (daysText === '') errors.days = DAYS_EMPTY;
    else if (typedDays === null) errors.days = DAYS_FORMAT;
    else days = typedDays;
  } else if (typedDays !== null && OfflineScope.shape.days.safeParse(typedDays).success) days = typedDays;

  const budgetText = form.budget.trim();
  let budgetBytes = 0;
  if (!DECIMAL.test(budgetText)) errors.budgetBytes = BUDGET_FORMAT;
  else budgetBytes = Math.round(Number(budgetText.replace(',', '.')) * GIB);

  const parsed = OfflineScope.safeParse({ mode: form.mode, days, budgetBytes });
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      if (key === 'days' || key === 'budgetBytes') errors[key] ??= issue.message;
    }
  if (errors.days !== undefined || errors.budgetBytes !== undefined || !parsed.success)
    return { ok: false, errors };
  return { ok: true, scope: parsed.data };
}
