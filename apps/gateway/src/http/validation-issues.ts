import { ValidationError } from 'class-validator';
import { BODY_FIELD_CONSTRAINT, ISSUE_TYPE_SEPARATOR } from './body-field.decorator';
import { ValidationIssue } from './error-envelope';

/**
 * class-validator failures → pydantic-style issues, so clients written against the reference see the
 * same messages (`Extra inputs are not permitted`, `Input should be greater than or equal to 64`, …).
 */
export function toIssues(errors: ValidationError[], loc: (string | number)[] = ['body']): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const e of errors) {
    const here = [...loc, e.property];
    const own = Object.entries(e.constraints ?? {}).map(([name, message]) => issue(name, message, here, e));
    // A value of the wrong type has no range: `limit=abc` is "a valid integer", not "less than or equal to
    // 100000" (class-validator runs every decorator and lists the last-declared first), as pydantic reports it.
    const wrongType = own.filter((i) => TYPE_ISSUES.has(i.type));
    out.push(...(wrongType.length ? wrongType : own));
    if (e.children?.length) out.push(...toIssues(e.children, here));
  }
  return out;
}

const TYPE_ISSUES: ReadonlySet<string> = new Set([
  'int_type',
  'float_type',
  'string_type',
  'bool_type',
  'list_type',
  'dict_type',
]);

function issue(name: string, message: string, loc: (string | number)[], _e: ValidationError): ValidationIssue {
  switch (name) {
    case BODY_FIELD_CONSTRAINT: {
      const at = message.indexOf(ISSUE_TYPE_SEPARATOR);
      return { loc, message: message.slice(at + 1), type: message.slice(0, at) };
    }
    case 'whitelistValidation':
      return { loc, message: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'isDefined':
      return { loc, message: 'Field required', type: 'missing' };
    case 'isInt':
      return { loc, message: 'Input should be a valid integer', type: 'int_type' };
    case 'isNumber':
      return { loc, message: 'Input should be a valid number', type: 'float_type' };
    case 'isString':
      return { loc, message: 'Input should be a valid string', type: 'string_type' };
    case 'isBoolean':
      return { loc, message: 'Input should be a valid boolean', type: 'bool_type' };
    case 'isArray':
      return { loc, message: 'Input should be a valid list', type: 'list_type' };
    case 'isObject':
      return { loc, message: 'Input should be a valid dictionary', type: 'dict_type' };
    case 'min':
      return { loc, message: `Input should be greater than or equal to ${bound(message)}`, type: 'greater_than_equal' };
    case 'max':
      return { loc, message: `Input should be less than or equal to ${bound(message)}`, type: 'less_than_equal' };
    case 'isIn':
    case 'isEnum':
      return {
        loc,
        message: message.replace(/^\S+ must be one of the following values: /, 'Input should be one of: '),
        type: 'literal_error',
      };
    default:
      return { loc, message: stripProperty(message, String(loc[loc.length - 1])), type: 'value_error' };
  }
}

function bound(message: string): string {
  // The message's last word, tested whole: a pattern anchored only at the end rescans a run of digits from each one.
  const last = message.trimEnd().split(/\s/).pop() ?? '';
  return /^-?\d+(?:\.\d+)?$/.test(last) ? last : message;
}

function stripProperty(message: string, prop: string): string {
  return message.startsWith(`${prop} `) ? message.slice(prop.length + 1) : message;
}
