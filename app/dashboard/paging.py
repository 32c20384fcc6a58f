"""Page numbers of the dashboard's lists: a page of PAGE_SIZE rows read with limit/offset."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_PAGE", "PAGE_SIZE", "Pager"]

PAGE_SIZE = 50
MAX_PAGE = 100_000


@dataclass(frozen=True)
class Pager:
    page: int  # 1-based
    size: int = PAGE_SIZE
    count: int = 0

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size

    @property
    def pages(self) -> int:
        return max(1, -(-self.count // self.size))

    @property
    def first(self) -> int:
        return min(self.offset + 1, self.count)

    @property
    def last(self) -> int:
        return min(self.offset + self.size, self.count)

    def counted(self, count: int) -> Pager:
        return Pager(page=self.page, size=self.size, count=count)
