import type { VNode } from 'preact';
import { Api } from '../api';
import { match, navigate } from '../router';
import type { Role, Session } from '../session';
import { ReviewQueue } from './review-queue';
import { ReviewRequest } from './review-request';
import { RequestList } from './request-list';
import { RequestDetail } from './request-detail';
import { NewRequest } from './new-request';
import { Webhooks } from './webhooks';
import { ZoneList } from './zone-list';
import { ZoneImport } from './zone-import';

interface Route {
  pattern: string;
  role: Role;
  screen: (api: Api, session: Session, parameters: Record<string, string>) => VNode;
}

const ROUTES: Route[] = [
  { pattern: '/reviews', role: 'reviewer', screen: (api) => <ReviewQueue api={api} /> },
  {
    pattern: '/reviews/:uuid',
    role: 'reviewer',
    screen: (api, session, { uuid }) => <ReviewRequest api={api} uuid={uuid ?? ''} authority={session.authority} />,
  },
  { pattern: '/requests', role: 'operator', screen: (api) => <RequestList api={api} /> },
  { pattern: '/requests/new', role: 'operator', screen: (api, session) => <NewRequest api={api} operatorUuid={session.operatorUuid ?? ''} /> },
  { pattern: '/requests/:uuid', role: 'operator', screen: (api, _, { uuid }) => <RequestDetail api={api} uuid={uuid ?? ''} /> },
  { pattern: '/webhooks', role: 'operator', screen: (api) => <Webhooks api={api} /> },
  { pattern: '/zones', role: 'admin', screen: (api) => <ZoneList api={api} /> },
  { pattern: '/zones/import', role: 'admin', screen: (api) => <ZoneImport api={api} /> },
];

const HOME: Record<Role, string> = { reviewer: '/reviews', operator: '/requests', admin: '/zones' };

/**
 * The screen at `path` if the session's role has it. Another role's screen is
 * refused without being rendered (so nothing of it is fetched or shown).
 */
export function screenFor(session: Session, path: string): VNode {
  if (path === '/') {
    queueMicrotask(() => navigate(HOME[session.role], true));
    return <p role="status">Opening…</p>;
  }
  for (const route of ROUTES) {
    const parameters = match(route.pattern, path);
    if (parameters === null) continue;
    if (route.role !== session.role) return <Refused role={session.role} />;
    return route.screen(new Api(session.key), session, parameters);
  }
  return (
    <section>
      <h1>Not found</h1>
      <p>There is no such screen in the console.</p>
    </section>
  );
}

function Refused({ role }: { role: Role }) {
  return (
    <section>
      <h1>Not available</h1>
      <p>
        This screen is not available to {role === 'admin' ? 'an' : 'a'} {role} key.
      </p>
    </section>
  );
}
