import { ValidateBy, ValidationOptions } from 'class-validator';

// Validators for the contract's Union[...] fields, with pydantic-like messages.

/** `Union[str, List[str]]` */
export const IsStringOrStringList = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isStringOrStringList',
      validator: {
        validate: (v: unknown) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
        defaultMessage: () => 'Input should be a valid string or a list of strings',
      },
    },
    opts,
  );

const isInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x);
const isIntText = (x: unknown) => typeof x === 'string' && /^\s*[+-]?\d+\s*$/.test(x);

/** `level`: `Union[int, str, List[int]]` (list items may be integer strings, as pydantic coerces them). */
export const IsLevel = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isLevel',
      validator: {
        validate: (v: unknown) =>
          isInt(v) || typeof v === 'string' || (Array.isArray(v) && v.every((x) => isInt(x) || isIntText(x))),
        defaultMessage: () => 'Input should be a valid integer, a string such as "0,2", or a list of integers',
      },
    },
    opts,
  );

/** `telemetry`: a boolean or an options object. */
export const IsTelemetry = (opts?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isTelemetry',
      validator: {
        validate: (v: unknown) => typeof v === 'boolean' || (typeof v === 'object' && v !== null && !Array.isArray(v)),
        defaultMessage: () => 'Input should be a valid boolean or a dictionary',
      },
    },
    opts,
  );
