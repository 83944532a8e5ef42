import type { ParameterizedContext } from 'koa';
import type { KitState } from '@dfc/kit/http';
import type { PublicOrigin } from '../domain/public-origin.js';

/** What the gateway's middleware leave on `ctx.state` before a call is routed: the kit's request id and logger, then the public address. */
export interface GatewayState extends Pick<KitState, 'requestId' | 'log'> {
  publicOrigin: PublicOrigin;
}

export type GatewayContext = ParameterizedContext<GatewayState>;
