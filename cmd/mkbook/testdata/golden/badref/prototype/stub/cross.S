/* the fixture's code: ev_stub_cross and EV_NR_SERVICES exist here */
ev_stub_cross: EV_NR_SERVICES
