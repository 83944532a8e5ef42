import type { ComponentChildren } from 'preact';
import { ApiError } from '../api';
import { BASE, navigate } from '../router';

/** A real link (open in a new tab works) that navigates in the page. */
export function Link({ to, children, label, current }: { to: string; children: ComponentChildren; label?: string; current?: boolean }) {
  return (
    <a
      aria-label={label}
      aria-current={current ? 'page' : undefined}
      href={`${BASE}${to}`}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/**
 * An API failure as the user should read it: a 429 says how long to wait
 * (`Retry-After`), a 409 gives the API's reason, a 422 says to see the fields
 * (their messages sit beside them, see `Field`). With `paths`, a 422's
 * messages are also listed under the JSON path the API names, for a form
 * whose body has paths no field of it shows (`volumes`, a volume's geometry
 * deep inside).
 */
export function ErrorBanner({ error, paths = false }: { error: unknown; paths?: boolean }) {
  if (error === null || error === undefined) return null;
  const fields = paths && error instanceof ApiError ? Object.entries(error.fields) : [];
  return (
    <div class="error-banner" role="alert">
      {describe(error)}
      {fields.length > 0 ? (
        <ul class="error-paths">
          {fields.map(([path, messages]) => (
            <li key={path}>
              <code>{path}</code>: {messages.join(' ')}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function describe(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 429) return `Too many requests: try again in ${error.retryAfter ?? 60} s.`;
  if (error.status === 409) return `Conflict: ${error.message}`;
  if (error.status === 401) return 'The API key was refused (unknown, revoked or mistyped).';
  if (error.status === 422 && Object.keys(error.fields).length > 0) return `${error.message} See the fields marked below.`;
  return error.message;
}

/** The 422 messages of `name` (and of anything under it), if `error` has any. */
export function fieldErrors(error: unknown, name: string): string[] {
  return error instanceof ApiError ? error.fieldMessages(name) : [];
}

/** A labelled control whose API errors are announced with it (aria-describedby). */
export function Field({
  id,
  label,
  error,
  name,
  children,
  hint,
}: {
  id: string;
  label: string;
  error: unknown;
  /** The API's field name the messages belong to. */
  name: string;
  hint?: string;
  children: (described: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ComponentChildren;
}) {
  const messages = fieldErrors(error, name);
  const describedBy = [hint ? `${id}-hint` : '', messages.length ? `${id}-errors` : ''].filter(Boolean).join(' ');
  return (
    <div class={messages.length ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint ? <small id={`${id}-hint`}>{hint}</small> : null}
      {children({ id, ...(describedBy ? { 'aria-describedby': describedBy } : {}), ...(messages.length ? { 'aria-invalid': true } : {}) })}
      {messages.length ? (
        <ul class="field-errors" id={`${id}-errors`}>
          {messages.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Pager({
  page,
  lastPage,
  total,
  onPage,
  label,
}: {
  page: number;
  lastPage: number;
  total: number;
  onPage: (page: number) => void;
  label: string;
}) {
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {page} of {Math.max(lastPage, 1)} · {total} in all
      </span>
      <button type="button" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

export function Loading() {
  return <p role="status">Loading…</p>;
}

export { when } from './format';

/** A wide table scrolls sideways on a phone; the region is focusable so the keyboard can scroll it too. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
