import { useState } from 'preact/hooks';
import type { FlightRequestRecord } from '@dfc/contracts';
import { query, type Api, type Page } from '../api';
import { ErrorBanner, TableWrap, Field, Link, Loading, Pager, StatusBadge, when } from '../ui/components';
import { useLoad } from '../ui/use-load';

const STATUSES = ['Pending', 'Approved', 'Suspended', 'Rejected', 'Cancelled', 'Expired', 'Rescinded'];
const PER_PAGE = 10;

interface Filters {
  status: string[];
  from_date: string;
  to_date: string;
}

/** The operator's requests, newest first, with the API's filters (status list, date range). */
export function RequestList({ api }: { api: Api }) {
  const [filters, setFilters] = useState<Filters>({ status: [], from_date: '', to_date: '' });
  const [applied, setApplied] = useState<Filters>(filters);
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      api.get<Page<FlightRequestRecord>>(
        `/api/flight-requests${query({ status: applied.status.join(','), from_date: applied.from_date, to_date: applied.to_date, page, per_page: PER_PAGE })}`,
      ),
    [applied, page],
  );
  const toggle = (status: string) =>
    setFilters({ ...filters, status: filters.status.includes(status) ? filters.status.filter((s) => s !== status) : [...filters.status, status] });
  return (
    <section>
      <h1>Flight requests</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setApplied(filters);
        }}
      >
        <fieldset>
          <legend>Status</legend>
          {STATUSES.map((status) => (
            <label key={status} class="check">
              <input type="checkbox" checked={filters.status.includes(status)} onChange={() => toggle(status)} /> {status}
            </label>
          ))}
        </fieldset>
        <Field id="from-date" label="From date" name="from_date" error={list.error}>
          {(control) => (
            <input {...control} type="date" value={filters.from_date} onInput={(e) => setFilters({ ...filters, from_date: e.currentTarget.value })} />
          )}
        </Field>
        <Field id="to-date" label="To date" name="to_date" error={list.error}>
          {(control) => (
            <input {...control} type="date" value={filters.to_date} onInput={(e) => setFilters({ ...filters, to_date: e.currentTarget.value })} />
          )}
        </Field>
        <button type="submit">Apply filters</button>
      </form>
      <ErrorBanner error={list.error} />
      {list.data === null ? (
        list.error ? null : (
          <Loading />
        )
      ) : list.data.data.length === 0 ? (
        <p>No flight requests match.</p>
      ) : (
        <>
          <TableWrap label="Your flight requests">
            <table>
              <caption>Your flight requests, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Start</th>
                  <th scope="col">Purpose</th>
                  <th scope="col">Altitude</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((record) => (
                  <tr key={record.uuid}>
                    <td>
                      <Link to={`/requests/${record.uuid}`}>{when(record.start_time)}</Link>
                    </td>
                    <td>{record.purpose}</td>
                    <td>{record.max_altitude} m</td>
                    <td>
                      <StatusBadge status={record.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          <Pager
            label="Flight requests"
            page={list.data.meta.current_page}
            lastPage={list.data.meta.last_page}
            total={list.data.meta.total}
            onPage={setPage}
          />
        </>
      )}
    </section>
  );
}
