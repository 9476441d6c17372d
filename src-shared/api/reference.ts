import { z } from 'zod';
import { CurrencyCode, Id, Timestamp, listEnvelope } from './common';

export const ExpenseAccount = z
  .looseObject({
    id: Id,
    name: z.string(),
    number: z.string(),
    status: z.enum(['ACTIVE', 'INACTIVE']),
    createTime: Timestamp,
    updateTime: Timestamp,
  })
  .meta({ id: 'ExpenseAccount' });

export const TaxRateType = z.enum(['STANDARD', 'REDUCED', 'ZERO', 'EXEMPT', 'REVERSE_CHARGE']);
export const TaxRate = z
  .looseObject({
    id: Id,
    name: z.string(),
    type: TaxRateType,
    /** Percentage as a decimal string ("19.00"). */
    rate: z.string().regex(/^\d+(\.\d+)?$/),
    country: z.string(),
    status: z.enum(['ACTIVE', 'INACTIVE']),
  })
  .meta({ id: 'TaxRate' });

export const UserRole = z.enum(['ADMIN', 'ACCOUNTANT', 'APPROVER', 'EMPLOYEE', 'PURCHASER']);
export const User = z
  .looseObject({
    id: Id,
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    roles: z.array(UserRole),
    teamId: Id.nullable(),
    departmentId: Id.nullable(),
    status: z.enum(['ACTIVE', 'INACTIVE']),
  })
  .meta({ id: 'User' });

export const Team = z
  .looseObject({ id: Id, name: z.string(), managerUserId: Id.nullable() })
  .meta({ id: 'Team' });
export const Department = z
  .looseObject({ id: Id, name: z.string(), code: z.string() })
  .meta({ id: 'Department' });
export const PaymentTerm = z
  .looseObject({
    id: Id,
    name: z.string(),
    dueDays: z.number().int().min(0),
    discountDays: z.number().int().min(0),
    discountPercent: z.string(),
    currency: CurrencyCode.nullable(),
  })
  .meta({ id: 'PaymentTerm' });

export const ExpenseAccountPage = listEnvelope(ExpenseAccount).meta({ id: 'ExpenseAccountPage' });
export const TaxRatePage = listEnvelope(TaxRate).meta({ id: 'TaxRatePage' });
export const UserPage = listEnvelope(User).meta({ id: 'UserPage' });
export const TeamPage = listEnvelope(Team).meta({ id: 'TeamPage' });
export const DepartmentPage = listEnvelope(Department).meta({ id: 'DepartmentPage' });
export const PaymentTermPage = listEnvelope(PaymentTerm).meta({ id: 'PaymentTermPage' });

export type ExpenseAccount = z.infer<typeof ExpenseAccount>;
export type TaxRate = z.infer<typeof TaxRate>;
export type User = z.infer<typeof User>;
export type Team = z.infer<typeof Team>;
export type Department = z.infer<typeof Department>;
export type PaymentTerm = z.infer<typeof PaymentTerm>;
