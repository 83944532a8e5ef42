import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import type { ReviewItemKind, ReviewItemStatus } from '@dfc/contracts';
import type { ReviewItemDraft } from '../screening/screen.js';

/** One item of a request's review group (PRODUCT.md "Review group"). */
export interface ReviewItem {
  id: string;
  kind: ReviewItemKind;
  authority: string;
  zone_id: string | null;
  finding_codes: string[];
  message: string;
  status: ReviewItemStatus;
  reason: string | null;
  decided_at: Date | null;
  decided_by: string | null;
}

export interface ItemDecision {
  decision: 'approve' | 'reject';
  reason: string;
  actor: string;
  at: Date;
}

export interface DecisionOutcome {
  /** The whole group after the decision. */
  items: ReviewItem[];
  decided: ReviewItem;
  /** The other pending items a rejection took with it. */
  cascaded: ReviewItem[];
  /** No item is pending any more: the group's review is complete. */
  completed: boolean;
  /** The request's new status when this decision settles it. */
  settles: 'Approved' | 'Rejected' | null;
}

/** Screening's drafts become the pending items of a new request. */
export function openItems(drafts: ReviewItemDraft[], newId: () => string): ReviewItem[] {
  return drafts.map((draft) => ({
    id: newId(),
    kind: draft.kind,
    authority: draft.authority,
    zone_id: draft.zone_id,
    finding_codes: [...draft.finding_codes],
    message: draft.message,
    status: 'pending',
    reason: null,
    decided_at: null,
    decided_by: null,
  }));
}

/**
 * Approving settles the request only when it was the last pending item (all
 * approved → Approved); rejecting settles it at once (Rejected) and
 * cascade-rejects every other pending item with the same reason.
 */
export function decideItem(items: ReviewItem[], itemId: string, decision: ItemDecision): DecisionOutcome {
  const target = items.find((item) => item.id === itemId);
  if (!target) throw new NotFoundError();
  if (target.status !== 'pending') {
    throw new ConflictError(`The review item is already ${target.status.replace('_', '-')}.`);
  }
  const stamp = { reason: decision.reason, decided_at: decision.at, decided_by: decision.actor };
  const decided: ReviewItem = { ...target, ...stamp, status: decision.decision === 'approve' ? 'approved' : 'rejected' };
  const cascaded: ReviewItem[] = [];
  const next = items.map((item) => {
    if (item.id === itemId) return decided;
    if (decision.decision === 'reject' && item.status === 'pending') {
      const rejected: ReviewItem = { ...item, ...stamp, status: 'cascade_rejected' };
      cascaded.push(rejected);
      return rejected;
    }
    return item;
  });
  const completed = isComplete(next);
  return { items: next, decided, cascaded, completed, settles: settlement(decision.decision, completed, next) };
}

function settlement(decision: ItemDecision['decision'], completed: boolean, items: ReviewItem[]): DecisionOutcome['settles'] {
  if (decision === 'reject') return 'Rejected';
  if (completed && items.every((item) => item.status === 'approved')) return 'Approved';
  return null;
}

/** Cancellation and expiry withdraw what nobody decided yet. */
export function withdrawPending(items: ReviewItem[], actor: string, at: Date, reason: string | null): ReviewItem[] {
  return items.map((item) => (item.status === 'pending' ? { ...item, status: 'withdrawn', reason, decided_at: at, decided_by: actor } : item));
}

export function isComplete(items: ReviewItem[]): boolean {
  return items.every((item) => item.status !== 'pending');
}

/** Authorities that ever had an item on the request: who may read it. */
export function reviewAuthorities(items: ReviewItem[]): string[] {
  return [...new Set(items.map((item) => item.authority))];
}
