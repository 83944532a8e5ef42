import { useState } from 'preact/hooks';
import type { ReviewItemRecord } from '@dfc/contracts';
import type { Api } from '../api';
import { ErrorBanner, Field, StatusBadge } from '../ui/components';
import { RequestPage, useFlightRequest } from './request-parts';

/**
 * One request under review: its area on the map, the findings behind it and
 * its review group. Refreshed every 5 s, so decisions by other authorities
 * (and the request's new status) show without a reload.
 */
export function ReviewRequest({ api, uuid, authority }: { api: Api; uuid: string; authority: string | null }) {
  const request = useFlightRequest(api, uuid, 5_000);
  return (
    <RequestPage back={{ to: '/reviews', label: 'Review queue' }} title="Review a flight request" statusLabel="Request status" request={request}>
      {(record) => (
        <>
          <h2>Review group</h2>
          <ul class="items">
            {record.review.items.map((item) => (
              <li key={item.id}>
                <ReviewItem api={api} item={item} decidable={!authority || item.authority === authority} onDecided={request.reload} />
              </li>
            ))}
          </ul>
        </>
      )}
    </RequestPage>
  );
}

/** An item of the group; its decision form only where the reviewer's authority decides it (when known). */
function ReviewItem({ api, item, decidable, onDecided }: { api: Api; item: ReviewItemRecord; decidable: boolean; onDecided: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/api/reviews/${item.id}/decision`, { decision, reason });
      onDecided();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="item" aria-label={`${item.authority} item`}>
      <p>
        <strong>{item.authority}</strong> · {item.kind.replace('_', ' ')} · <StatusBadge status={item.status} />
      </p>
      <p>{item.message}</p>
      {item.reason ? <p>Reason: “{item.reason}”</p> : null}
      {item.status === 'pending' && decidable ? (
        <form onSubmit={(event) => event.preventDefault()}>
          <ErrorBanner error={error} />
          <Field id={`reason-${item.id}`} label="Reason for the decision" name="reason" error={error}>
            {(control) => <textarea {...control} rows={2} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />}
          </Field>
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void decide('approve')}>
              Approve
            </button>
            <button type="button" class="danger" disabled={busy} onClick={() => void decide('reject')}>
              Reject
            </button>
          </div>
        </form>
      ) : null}
    </article>
  );
}
