import { useState } from 'preact/hooks';
import type { FlightRequestRecord } from '@dfc/contracts';
import type { Api } from '../api';
import { ErrorBanner, Field } from '../ui/components';
import { Authorisation } from './authorisation';
import { flightActions, outcomeText } from './amendment';
import { ActivateForm, AmendForm, EndForm, type ActionDone } from './flight-actions';
import { History, RequestPage, useFlightRequest } from './request-parts';

const CANCELLABLE = ['Pending', 'Approved'];

/**
 * An operator's request: area on the map, history, review, authorisation, and what may be done
 * with it now: amend it before it starts, activate it inside its window, end it, cancel it.
 */
export function RequestDetail({ api, uuid }: { api: Api; uuid: string }) {
  const request = useFlightRequest(api, uuid, 10_000);
  return (
    <RequestPage api={api} back={{ to: '/requests', label: 'Flight requests' }} title="Flight request" statusLabel="Status" request={request}>
      {(record) => (
        <>
          <h2>History</h2>
          <History history={record.status_history} />
          {record.status === 'Approved' || record.status === 'Activated' ? <Authorisation api={api} record={record} /> : null}
          <Actions api={api} record={record} onDone={request.reload} />
          {CANCELLABLE.includes(record.status) ? <CancelForm api={api} uuid={record.uuid} onCancelled={request.reload} /> : null}
        </>
      )}
    </RequestPage>
  );
}

/** The forms the request's status and window allow now, and what the API answered to the last one sent. */
function Actions({ api, record, onDone }: { api: Api; record: FlightRequestRecord; onDone: () => void }) {
  const [outcome, setOutcome] = useState('');
  const can = flightActions(record, Date.now());
  const done: ActionDone = (action, answer) => {
    setOutcome(outcomeText(action, answer));
    onDone();
  };
  return (
    <>
      <p class="outcome" role="status">
        {outcome}
      </p>
      {can.activate ? <ActivateForm api={api} uuid={record.uuid} onDone={done} /> : null}
      {can.end ? <EndForm api={api} uuid={record.uuid} onDone={done} /> : null}
      {can.amend ? <AmendForm key={record.revision} api={api} record={record} onDone={done} /> : null}
    </>
  );
}

function CancelForm({ api, uuid, onCancelled }: { api: Api; uuid: string; onCancelled: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const cancel = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api.delete(`/api/flight-requests/${uuid}`, { reason });
      onCancelled();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={(event) => void cancel(event)} aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel this request</h2>
      <ErrorBanner error={error} />
      <Field id="cancel-reason" label="Reason for cancelling" name="reason" error={error}>
        {(control) => <textarea {...control} rows={2} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />}
      </Field>
      <button type="submit" class="danger">
        Cancel request
      </button>
    </form>
  );
}
