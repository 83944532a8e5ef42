import type { ComponentChildren } from 'preact';
import type { Role, Session } from '../session';
import { usePath } from '../router';
import { Link } from './components';

/** The screens each role has; nothing else is linked, and routes.tsx refuses the others. */
export const NAVIGATION: Record<Role, Array<{ to: string; label: string }>> = {
  reviewer: [{ to: '/reviews', label: 'Review queue' }],
  operator: [
    { to: '/requests', label: 'Flight requests' },
    { to: '/requests/new', label: 'New request' },
    { to: '/webhooks', label: 'Webhooks' },
  ],
  admin: [
    { to: '/zones', label: 'Zones' },
    { to: '/zones/import', label: 'Import zones' },
  ],
};

export function Shell({ session, onSignOut, children }: { session: Session; onSignOut: () => void; children: ComponentChildren }) {
  const path = usePath();
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Flight clearance console</span>
        <nav aria-label="Screens">
          {NAVIGATION[session.role].map((item) => (
            <Link key={item.to} to={item.to} current={path === item.to}>
              {item.label}
            </Link>
          ))}
        </nav>
        <span class="who">
          <span data-role={session.role}>{session.label}</span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
