import { expect } from 'chai';
import { paginate, pagerWindow } from '@dfc/kit/pagination';

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
