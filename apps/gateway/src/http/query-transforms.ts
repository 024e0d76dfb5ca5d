import { parseLaxBoolean } from '@app/kernel';

/** Query strings arrive as text; these turn well-formed values into numbers/booleans and leave the rest for the validator to reject. */
export const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/** The one lax boolean (`parseLaxBoolean`), as for body fields; other text is left for `@IsBoolean` to refuse. */
export const toBoolean = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? (parseLaxBoolean(value) ?? value) : value;
