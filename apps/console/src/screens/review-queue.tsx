import { useState } from 'preact/hooks';
import type { ReviewQueueEntry } from '@dfc/contracts';
import type { Api, Page } from '../api';
import { query } from '../api';
import { ErrorBanner, TableWrap, Link, Loading, Pager, when } from '../ui/components';
import { useLoad } from '../ui/use-load';

const PER_PAGE = 10;

/** The reviewer's pending items, oldest request first (the API's order), refreshed every 10 s. */
export function ReviewQueue({ api }: { api: Api }) {
  const [page, setPage] = useState(1);
  const queue = useLoad(() => api.get<Page<ReviewQueueEntry>>(`/api/reviews${query({ page, per_page: PER_PAGE })}`), [page], 10_000);
  return (
    <section>
      <h1>Review queue</h1>
      <ErrorBanner error={queue.error} />
      {queue.data === null ? (
        queue.error ? null : (
          <Loading />
        )
      ) : queue.data.data.length === 0 ? (
        <p>No pending items.</p>
      ) : (
        <>
          <TableWrap label="Pending review items">
            <table>
              <caption>Pending review items</caption>
              <thead>
                <tr>
                  <th scope="col">Flight window</th>
                  <th scope="col">Why</th>
                  <th scope="col">Altitude</th>
                  <th scope="col">Purpose</th>
                  <th scope="col">Competing</th>
                  <th scope="col">Open</th>
                </tr>
              </thead>
              <tbody>
                {queue.data.data.map((item) => (
                  <tr key={item.id}>
                    <td>{when(item.flight_request.start_time)}</td>
                    <td>{item.message}</td>
                    <td>{item.flight_request.max_altitude} m</td>
                    <td>{item.flight_request.purpose}</td>
                    <td>{item.competing?.length ? `${item.competing.length} shared volume(s)` : 'None'}</td>
                    <td>
                      <Link
                        to={`/reviews/${item.flight_request.uuid}`}
                        label={`Review the request of ${when(item.flight_request.start_time)}: ${item.flight_request.purpose}`}
                      >
                        Review
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <Pager
            label="Review queue"
            page={queue.data.meta.current_page}
            lastPage={queue.data.meta.last_page}
            total={queue.data.meta.total}
            onPage={setPage}
          />
        </>
      )}
    </section>
  );
}
