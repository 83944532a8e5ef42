import { expect } from 'chai';
import { ValidationError } from '@dfc/kit/errors';
import { cursorPaginate, decodeCursor, encodeCursor, listRequest, pageOfFound, paginate, pagerWindow } from '@dfc/kit/pagination';

describe('paginate (Laravel envelope)', () => {
  const path = 'http://127.0.0.1:8080/api/things';

  it('when 23 items are listed 10 a page, then page 3 holds items 21..23', () => {
    const page = paginate(['u', 'v', 'w'], 23, { page: 3, per_page: 10 }, path, { status: 'Pending' });
    const { links, ...meta } = page.meta;
    expect(meta).to.deep.equal({ current_page: 3, from: 21, last_page: 3, path, per_page: 10, to: 23, total: 23 });
    expect(links).to.deep.equal([
      { url: `${path}?status=Pending&per_page=10&page=2`, label: '&laquo; Previous', active: false },
      { url: `${path}?status=Pending&per_page=10&page=1`, label: '1', active: false },
      { url: `${path}?status=Pending&per_page=10&page=2`, label: '2', active: false },
      { url: `${path}?status=Pending&per_page=10&page=3`, label: '3', active: true },
      { url: null, label: 'Next &raquo;', active: false },
    ]);
    expect(page.links.first).to.equal(`${path}?status=Pending&per_page=10&page=1`);
    expect(page.links.prev).to.equal(`${path}?status=Pending&per_page=10&page=2`);
    expect(page.links.next).to.equal(null);
  });

  it('when nothing matches, then from/to are null and there is one empty page', () => {
    const page = paginate([], 0, { page: 1, per_page: 15 }, path);
    expect(page.meta).to.include({ from: null, to: null, last_page: 1, total: 0 });
    expect(page.links.prev).to.equal(null);
    expect(page.links.next).to.equal(null);
  });

  it('when the page is beyond the last, then it is empty and prev points at the last page', () => {
    const page = paginate([], 5, { page: 9, per_page: 2 }, path);
    expect(page.meta).to.include({ current_page: 9, from: null, last_page: 3 });
    expect(page.links.prev).to.equal(`${path}?per_page=2&page=3`);
  });

  it('when there are many pages, then meta.links shows the window around the current page with gaps, as Laravel does', () => {
    expect(pagerWindow(1, 13)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(pagerWindow(2, 20)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 19, 20]);
    expect(pagerWindow(10, 20)).to.deep.equal([1, 2, 0, 7, 8, 9, 10, 11, 12, 13, 0, 19, 20]);
    expect(pagerWindow(19, 20)).to.deep.equal([1, 2, 0, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    const gaps = paginate([], 200, { page: 10, per_page: 10 }, path).meta.links.filter((link) => link.label === '...');
    expect(gaps).to.deep.equal([
      { url: null, label: '...', active: false },
      { url: null, label: '...', active: false },
    ]);
  });
});

describe('cursor pagination beside page', () => {
  it('when a position is encoded, then decoding the cursor gives it back; anything else is not a cursor', () => {
    const position = { at: new Date('2026-12-01T10:00:00.123Z'), id: 'b2c1' };
    expect(decodeCursor(encodeCursor(position))).to.deep.equal(position);
    for (const text of ['', 'not-a-cursor', Buffer.from('[1]').toString('base64url'), Buffer.from('["x","y"]').toString('base64url')]) {
      expect(decodeCursor(text), text).to.equal(null);
    }
  });

  it('when cursor comes with page, or is not a cursor, then 422 names cursor', () => {
    const cursor = encodeCursor({ at: new Date(), id: 'a' });
    expect(() => listRequest({ page: 2, per_page: 15, cursor }, true))
      .to.throw(ValidationError)
      .with.property('errors')
      .that.deep.equals({ cursor: ['The cursor field cannot be combined with page.'] });
    expect(() => listRequest({ page: 1, per_page: 15, cursor: 'bogus' }, false))
      .to.throw(ValidationError)
      .with.property('errors')
      .that.deep.equals({ cursor: ['The cursor is not valid.'] });
    expect(listRequest({ page: 3, per_page: 10 }, true)).to.deep.equal({ page: { page: 3, per_page: 10 } });
  });

  it('when a cursor page has a next one, then links.next carries the filters and the cursor, as Laravel’s cursor paginator', () => {
    const envelope = cursorPaginate(['a'], 'CUR', 10, 'http://x/api/items', { status: 'Pending', operator_uuid: undefined });
    expect(envelope.links).to.deep.equal({ first: null, last: null, prev: null, next: 'http://x/api/items?status=Pending&per_page=10&cursor=CUR' });
    expect(envelope.meta).to.deep.equal({ path: 'http://x/api/items', per_page: 10, next_cursor: 'CUR', prev_cursor: null });
    expect(cursorPaginate([], null, 10, 'http://x/api/items').links.next).to.equal(null);
  });

  it('when a page was read with one item more, then the page drops it and the cursor names the page’s last item', () => {
    const at = new Date('2026-12-01T00:00:00Z');
    const found = [1, 2, 3].map((n) => ({ id: `i${n}`, at }));
    const page = pageOfFound(found, 2, (item) => item);
    expect(page.items.map((item) => item.id)).to.deep.equal(['i1', 'i2']);
    expect(decodeCursor(page.nextCursor!)).to.deep.equal({ at, id: 'i2' });
    expect(pageOfFound(found, 3, (item) => item).nextCursor).to.equal(null);
  });
});
