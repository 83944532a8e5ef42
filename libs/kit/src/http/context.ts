import type { Logger } from 'pino';
import type { Principal } from '@dfc/contracts';

/** What the kit's middleware puts on `ctx.state` for handlers. */
export interface KitState {
  requestId: string;
  log: Logger;
  /** Set by `requireInternalToken` on every API route. */
  principal: Principal;
  /** The parsed JSON body (`{}` when there is none). */
  body: unknown;
}
