import { useState } from 'preact/hooks';
import type { DeliveryRecord, WebhookEndpointRecord } from '@dfc/contracts';
import { query, type Api, type Page } from '../api';
import { ErrorBanner, TableWrap, Loading, Pager, StatusBadge, when } from '../ui/components';
import { useLoad } from '../ui/use-load';

const PER_PAGE = 10;

/** The operator's webhook endpoints; one opened shows its delivery log, with test and redeliver. */
export function Webhooks({ api }: { api: Api }) {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const endpoints = useLoad(() => api.get<Page<WebhookEndpointRecord>>(`/api/webhooks${query({ page, per_page: PER_PAGE })}`), [page]);
  return (
    <section>
      <h1>Webhook endpoints</h1>
      <ErrorBanner error={endpoints.error} />
      {endpoints.data === null ? (
        endpoints.error ? null : (
          <Loading />
        )
      ) : endpoints.data.data.length === 0 ? (
        <p>No webhook endpoints yet (they are created with POST /api/webhooks).</p>
      ) : (
        <>
          <ul class="endpoints">
            {endpoints.data.data.map((endpoint) => (
              <li key={endpoint.id}>
                <button type="button" aria-expanded={open === endpoint.id} onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}>
                  {endpoint.url}
                </button>{' '}
                {endpoint.enabled ? 'enabled' : `disabled: ${endpoint.disabled_reason ?? ''}`} · {endpoint.events.join(', ')}
                {open === endpoint.id ? <Deliveries api={api} endpoint={endpoint} /> : null}
              </li>
            ))}
          </ul>
          <Pager
            label="Webhook endpoints"
            page={endpoints.data.meta.current_page}
            lastPage={endpoints.data.meta.last_page}
            total={endpoints.data.meta.total}
            onPage={setPage}
          />
        </>
      )}
    </section>
  );
}

function Deliveries({ api, endpoint }: { api: Api; endpoint: WebhookEndpointRecord }) {
  const [page, setPage] = useState(1);
  const [error, setError] = useState<unknown>(null);
  const log = useLoad(
    () => api.get<Page<DeliveryRecord>>(`/api/webhooks/${endpoint.id}/deliveries${query({ page, per_page: PER_PAGE })}`),
    [endpoint.id, page],
    5_000,
  );
  const act = async (path: string) => {
    setError(null);
    try {
      await api.post(path);
      log.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <div class="deliveries">
      <button type="button" onClick={() => void act(`/api/webhooks/${endpoint.id}/test`)}>
        Send a test event
      </button>
      <ErrorBanner error={error ?? log.error} />
      {log.data === null ? null : (
        <>
          <TableWrap label="Deliveries table">
            <table>
              <caption>Deliveries to {endpoint.url}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {log.data.data.map((delivery) => {
                  const last = delivery.attempts[delivery.attempts.length - 1];
                  return (
                    <tr key={delivery.id}>
                      <td>{when(delivery.created_at)}</td>
                      <td>{delivery.event}</td>
                      <td>
                        <StatusBadge status={delivery.status} /> ({delivery.attempt_count} attempt(s))
                      </td>
                      <td>{last ? `${last.status_code ?? last.error ?? ''} in ${last.latency_ms} ms` : ''}</td>
                      <td>
                        <button
                          type="button"
                          aria-label={`Redeliver the ${delivery.event} of ${when(delivery.created_at)}`}
                          onClick={() => void act(`/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`)}
                        >
                          Redeliver
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
          <Pager
            label="Deliveries"
            page={log.data.meta.current_page}
            lastPage={log.data.meta.last_page}
            total={log.data.meta.total}
            onPage={setPage}
          />
        </>
      )}
    </div>
  );
}
