import { SetMetadata } from '@nestjs/common';

export const RAW_RESPONSE = 'muninn:raw-response';

/** The handler's return value is the whole response body (no envelope). */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);
