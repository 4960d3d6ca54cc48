# Tag presence debouncing for one reader pad.
#
# A tag lying on the pad is ONE "tag" event, however many polls see it.  It is
# "removed" only after `miss_limit` polls in a row without it (a single missed
# poll, e.g. a reflection or a read error, is not a removal).  A new tag counts
# only after `confirm` polls in a row saw the same UID.


class Presence:
    def __init__(self, miss_limit=3, confirm=1):
        if miss_limit < 1 or confirm < 1:
            raise ValueError("miss_limit and confirm must be >= 1")
        self.miss_limit = miss_limit
        self.confirm = confirm
        self.current = None  # UID (bytes) believed on the pad
        self.misses = 0
        self.candidate = None
        self.seen = 0

    def update(self, uid):
        """Feed one poll result (UID bytes, or None for nothing / a read error).

        Returns a list of events: ("removed", uid) and/or ("tag", uid), in order.
        """
        events = []
        if uid is not None and uid == self.current:
            self.misses = 0
            self.candidate = None
            self.seen = 0
            return events
        if self.current is not None:
            if uid is None:
                self.candidate = None
                self.seen = 0
            elif self._confirmed(uid):
                # A different tag was put down in place of the old one.
                events.append(("removed", self.current))
                events.extend(self._accept(uid))
                return events
            self.misses += 1
            if self.misses >= self.miss_limit:
                events.append(("removed", self.current))
                self.current = None
                self.misses = 0
            return events
        if uid is None:
            self.candidate = None
            self.seen = 0
            return events
        if self._confirmed(uid):
            events.extend(self._accept(uid))
        return events

    def _confirmed(self, uid):
        if uid == self.candidate:
            self.seen += 1
        else:
            self.candidate = uid
            self.seen = 1
        return self.seen >= self.confirm

    def _accept(self, uid):
        self.current = uid
        self.misses = 0
        self.candidate = None
        self.seen = 0
        return [("tag", uid)]
