import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AppError, validationError } from '../../src-shared/errors';
import { commandNames, commands, eventNames, isCommandName } from '../../src-shared/ipc';

describe('errors as values', () => {
  it('name the field at fault from a zod failure', () => {
    const schema = z.object({ supplier: z.object({ code: z.string().min(1) }) });
    const parsed = schema.safeParse({ supplier: { code: '' } });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const error = validationError(parsed.error);
    expect(error).toBeInstanceOf(AppError);
    expect(error.toShape()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'supplier.code' });
    expect(error.message).toMatch(/Too small/);
    expect(error.message).not.toContain('supplier.code');
  });

  it('omit the field when none is at fault', () => {
    expect(new AppError('INTERNAL', 'x').toShape()).toEqual({ code: 'INTERNAL', message: 'x' });
  });
});

describe('IPC contract', () => {
  it('lists its commands and events and recognises only its own names', () => {
    expect(commandNames).toContain('app.info');
    expect(eventNames).toContain('app.notice');
    expect(isCommandName('app.info')).toBe(true);
    expect(isCommandName('toString')).toBe(false);
    expect(isCommandName('__proto__')).toBe(false);
    for (const name of commandNames) {
      expect(commands[name].input).toBeDefined();
      expect(commands[name].output).toBeDefined();
    }
  });
});
