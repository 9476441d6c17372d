export * from './common';
export * from './bank';
export * from './expenses';
export * from './suppliers';
export * from './dimensions';
export * from './reference';
export * from './operations';
