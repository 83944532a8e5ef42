import { useState } from 'preact/hooks';
import type { FlightRequestRecord } from '@dfc/contracts';
import type { Api } from '../api';
import { ErrorBanner, Field } from '../ui/components';
import { amendment, draftOf, type AmendDraft, type FlightAction } from './amendment';
import { VolumeEditor } from './volume-editor';

/** The request as an action's answer gives it, and which action it was. */
export type ActionDone = (action: FlightAction, answer: FlightRequestRecord) => void;
type Answer = Promise<{ data: FlightRequestRecord }>;

/** A call that reports its failure on its own form, and its answer to the page, which reloads the request. */
function useAction(action: FlightAction, onDone: ActionDone) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (call: () => Answer) => {
    setBusy(true);
    setError(null);
    try {
      onDone(action, (await call()).data);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/** Start an approved flight inside its window: it becomes Activated and keeps its airspace. */
export function ActivateForm({ api, uuid, onDone }: { api: Api; uuid: string; onDone: ActionDone }) {
  const { error, busy, run } = useAction('activate', onDone);
  return (
    <form
      aria-labelledby="activate-title"
      onSubmit={(event) => {
        event.preventDefault();
        void run(() => api.post<{ data: FlightRequestRecord }>(`/api/flight-requests/${uuid}/activate`, {}));
      }}
    >
      <h2 id="activate-title">Start the flight</h2>
      <ErrorBanner error={error} paths />
      <p>Activate the flight now that its window has opened: its airspace stays reserved until it is ended.</p>
      <button type="submit" disabled={busy}>
        Activate flight
      </button>
    </form>
  );
}

/** End an activated flight, with an optional reason: its airspace is given back. */
export function EndForm({ api, uuid, onDone }: { api: Api; uuid: string; onDone: ActionDone }) {
  const [reason, setReason] = useState('');
  const { error, busy, run } = useAction('end', onDone);
  return (
    <form
      aria-labelledby="end-title"
      onSubmit={(event) => {
        event.preventDefault();
        void run(() => api.post<{ data: FlightRequestRecord }>(`/api/flight-requests/${uuid}/end`, reason.trim() === '' ? {} : { reason }));
      }}
    >
      <h2 id="end-title">End the flight</h2>
      <ErrorBanner error={error} paths />
      <Field id="end-reason" label="Reason (optional)" name="reason" error={error}>
        {(control) => <input {...control} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />}
      </Field>
      <button type="submit" disabled={busy}>
        End flight
      </button>
    </form>
  );
}

/**
 * Amend a request that has not started: its window, ceiling or purpose, or, for a request of 4-D
 * volumes, its volumes (area, band, window each). It is screened again; approvals that still hold
 * are kept, the others go back to review (the page shows the outcome).
 */
export function AmendForm({ api, record, onDone }: { api: Api; record: FlightRequestRecord; onDone: ActionDone }) {
  const [draft, setDraft] = useState<AmendDraft>(() => draftOf(record));
  const [unchanged, setUnchanged] = useState(false);
  const { error, busy, run } = useAction('amend', onDone);
  const change = (next: AmendDraft) => {
    setUnchanged(false);
    setDraft(next);
  };
  const set = (field: 'start_time' | 'end_time' | 'max_altitude' | 'purpose') => (event: { currentTarget: { value: string } }) =>
    change({ ...draft, [field]: event.currentTarget.value });
  return (
    <form
      aria-labelledby="amend-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const body = amendment(record, draft);
        if (body === null) setUnchanged(true);
        else void run(() => api.send<{ data: FlightRequestRecord }>('PATCH', `/api/flight-requests/${record.uuid}`, body));
      }}
    >
      <h2 id="amend-title">Amend this request</h2>
      <ErrorBanner error={error} paths />
      {draft.volumes === null ? (
        <div class="grid">
          <Field id="amend-start" label="Start (UTC)" name="start_time" error={error}>
            {(control) => <input {...control} type="datetime-local" value={draft.start_time} onInput={set('start_time')} />}
          </Field>
          <Field id="amend-end" label="End (UTC)" name="end_time" error={error}>
            {(control) => <input {...control} type="datetime-local" value={draft.end_time} onInput={set('end_time')} />}
          </Field>
          <Field id="amend-altitude" label="Maximum altitude (m)" name="max_altitude" error={error}>
            {(control) => <input {...control} type="number" min={1} value={draft.max_altitude} onInput={set('max_altitude')} />}
          </Field>
        </div>
      ) : (
        <VolumeEditor volumes={draft.volumes} drawing={null} error={error} keepOne onChange={(volumes) => change({ ...draft, volumes })} />
      )}
      <Field id="amend-purpose" label="Purpose" name="purpose" error={error}>
        {(control) => <input {...control} value={draft.purpose} onInput={set('purpose')} />}
      </Field>
      {unchanged ? <p role="status">Nothing changed: the request stays as it is.</p> : null}
      <button type="submit" disabled={busy}>
        Amend request
      </button>
    </form>
  );
}
