import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'muninn:public';

/** The route needs no identity (health, metrics, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);
