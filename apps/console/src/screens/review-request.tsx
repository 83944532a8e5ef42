import { useState } from 'preact/hooks';
import type { GeoZoneRecord, ReviewItemRecord, ReviewQueueEntry, SharedVolume } from '@dfc/contracts';
import { ApiError, type Api, type Page } from '../api';
import { sharedVolumeLayers, sharedVolumeText } from '../map/shared-volumes';
import { ErrorBanner, Field, StatusBadge } from '../ui/components';
import { useLoad } from '../ui/use-load';
import { RequestPage, useFlightRequest } from './request-parts';
import { ZoneFacts } from './zones-around';

/** The queue page read for a request's competing volumes: the oldest pending items, which are decided first. */
const QUEUE_PAGE = 100;

/**
 * The volumes a request under review shares with other operators' pending requests, from the
 * reviewer's queue (the only place the API gives them), each once however many items it has.
 */
function useCompeting(api: Api, uuid: string): SharedVolume[] {
  const queue = useLoad(() => api.get<Page<ReviewQueueEntry>>(`/api/reviews?per_page=${QUEUE_PAGE}`), [uuid], 10_000);
  const volumes = (queue.data?.data ?? []).filter((entry) => entry.flight_request.uuid === uuid).flatMap((entry) => entry.competing ?? []);
  return [...new Map(volumes.map((volume) => [JSON.stringify(volume), volume])).values()];
}

/**
 * One request under review: its area on the map, the findings behind it and
 * its review group, and the airspace it shares with other operators' pending
 * requests. Refreshed every 5 s, so decisions by other authorities (and the
 * request's new status) show without a reload. An approval refused because an
 * approved flight holds the airspace (409) puts the volumes they share on the
 * map beside the competing ones, as the item lists them.
 */
export function ReviewRequest({ api, uuid, authority }: { api: Api; uuid: string; authority: string | null }) {
  const request = useFlightRequest(api, uuid, 5_000);
  const competing = useCompeting(api, uuid);
  const [taken, setTaken] = useState<SharedVolume[]>([]);
  return (
    <RequestPage
      api={api}
      back={{ to: '/reviews', label: 'Review queue' }}
      title="Review a flight request"
      statusLabel="Request status"
      request={request}
      layers={[...sharedVolumeLayers(competing, 'competing'), ...sharedVolumeLayers(taken, 'finding')]}
    >
      {(record, zones) => (
        <>
          {competing.length > 0 ? (
            <>
              <h2>Competing requests</h2>
              <p>Other operators' pending requests share this airspace: approving either denies the other.</p>
              <ul class="competing">
                {competing.map((volume) => (
                  <li key={JSON.stringify(volume)}>Shared volume: {sharedVolumeText(volume)}</li>
                ))}
              </ul>
            </>
          ) : null}
          <h2>Review group</h2>
          <ul class="items">
            {record.review.items.map((item) => (
              <li key={item.id}>
                <ReviewItem
                  api={api}
                  item={item}
                  zone={zones.find((zone) => zone.id === item.zone_id) ?? null}
                  decidable={!authority || item.authority === authority}
                  onDecided={request.reload}
                  onTaken={setTaken}
                />
              </li>
            ))}
          </ul>
        </>
      )}
    </RequestPage>
  );
}

/**
 * An item of the group, beside the zone that raised it (its limits and message as published); its
 * decision form only where the reviewer's authority decides it (when known).
 */
function ReviewItem({
  api,
  item,
  zone,
  decidable,
  onDecided,
  onTaken,
}: {
  api: Api;
  item: ReviewItemRecord;
  zone: GeoZoneRecord | null;
  decidable: boolean;
  onDecided: () => void;
  /** The volumes an approval was refused over (none once a decision goes through). */
  onTaken: (volumes: SharedVolume[]) => void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      await api.post(`/api/reviews/${item.id}/decision`, { decision, reason });
      onTaken([]);
      onDecided();
    } catch (failure) {
      setError(failure);
      onTaken(failure instanceof ApiError ? failure.conflicts : []);
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
      {zone ? <ZoneFacts zone={zone} heading="h4" /> : null}
      {item.reason ? <p>Reason: “{item.reason}”</p> : null}
      {item.status === 'pending' && decidable ? (
        <form onSubmit={(event) => event.preventDefault()}>
          <ErrorBanner error={error} />
          {error instanceof ApiError && error.conflicts.length > 0 ? (
            <ul class="taken">
              {error.conflicts.map((volume) => (
                <li key={JSON.stringify(volume)}>Held by an approved flight: {sharedVolumeText(volume)}</li>
              ))}
            </ul>
          ) : null}
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
